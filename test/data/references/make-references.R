# Reference values for the engine's LASSO and conditional-independence tests, computed with
# R 4.2.2, glmnet 4.1-6, survival 3.5-3, nnet (Debian bookworm). Writes the JSON files beside it, from the datasets in .. (test/data).
# Run from anywhere: Rscript make-references.R (needs apt packages r-base-core r-cran-glmnet r-cran-survival).
suppressMessages({ library(glmnet); library(survival); library(nnet) })
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
out <- here
D <- file.path(here, "..")
num <- function(x) unname(signif(x, 10))
json <- function(x) jsonlite_like(x)
# minimal JSON writer (no jsonlite on this machine)
jsonlite_like <- function(x, ind = "") {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    nm <- names(x); inner <- paste0(ind, "  ")
    if (!is.null(nm)) {
      parts <- mapply(function(k, v) paste0(inner, '"', k, '": ', jsonlite_like(v, inner)), nm, x)
      return(paste0("{\n", paste(parts, collapse = ",\n"), "\n", ind, "}"))
    }
    parts <- sapply(x, function(v) paste0(inner, jsonlite_like(v, inner)))
    return(paste0("[\n", paste(parts, collapse = ",\n"), "\n", ind, "]"))
  }
  if (is.character(x)) { s <- paste0('"', x, '"'); return(if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]")) }
  if (is.logical(x)) { s <- tolower(as.character(x)); return(if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]")) }
  s <- format(x, digits = 10, scientific = TRUE, trim = TRUE); s <- ifelse(x == round(x) & abs(x) < 1e9, format(x, scientific = FALSE, trim = TRUE), s)
  s[!is.finite(x)] <- "null"
  if (length(x) == 1) s else paste0("[", paste(s, collapse = ", "), "]")
}
write_json <- function(x, f) writeLines(jsonlite_like(x), file.path(out, f))

coefs_at <- function(fit, s) { b <- as.matrix(coef(fit, s = s, exact = FALSE)); b }

## ---------------------------------------------------------------- LASSO (glmnet)
lasso <- list()
# gaussian: diabetes, all 10 features
db <- read.csv(file.path(D, "diabetes.csv"))
X <- as.matrix(db[, setdiff(names(db), "progression")]); y <- db$progression
f <- glmnet(X, y, family = "gaussian")
pick <- c(1, 10, 20, 30, 40)
lasso$gaussian_diabetes <- list(
  data = "diabetes.csv", outcome = "progression", features = colnames(X), standardize = TRUE,
  lambda_max = num(f$lambda[1]), lambda_path_first5 = num(f$lambda[1:5]), path_length = length(f$lambda),
  at = lapply(pick, function(i) { b <- coef(f)[, i]; list(lambda = num(f$lambda[i]), intercept = num(b[1]), coefficients = as.list(setNames(num(b[-1]), colnames(X)))) }))
# binomial: breast_cancer (malignant vs benign), first 10 features (mean_*)
bc <- read.csv(file.path(D, "breast_cancer.csv"))
Xb <- as.matrix(bc[, 1:10]); yb <- factor(bc$diagnosis)
fb <- glmnet(Xb, yb, family = "binomial")
pickb <- c(1, 10, 20, 30)
lasso$binomial_breast_cancer <- list(
  data = "breast_cancer.csv", outcome = "diagnosis", positive_class = levels(yb)[2], features = colnames(Xb), standardize = TRUE,
  lambda_max = num(fb$lambda[1]), path_length = length(fb$lambda),
  at = lapply(pickb, function(i) { b <- coef(fb)[, i]; list(lambda = num(fb$lambda[i]), intercept = num(b[1]), coefficients = as.list(setNames(num(b[-1]), colnames(Xb)))) }))
# multinomial: iris
ir <- read.csv(file.path(D, "iris.csv"))
Xi <- as.matrix(ir[, 1:4]); yi <- factor(ir$species)
fi <- glmnet(Xi, yi, family = "multinomial")
picki <- c(1, 10, 20)
lasso$multinomial_iris <- list(
  data = "iris.csv", outcome = "species", features = colnames(Xi), standardize = TRUE, type_multinomial = "ungrouped",
  lambda_max = num(fi$lambda[1]), path_length = length(fi$lambda),
  at = lapply(picki, function(i) list(lambda = num(fi$lambda[i]), classes = lapply(setNames(levels(yi), levels(yi)), function(k) { b <- coef(fi)[[k]][, i]; list(intercept = num(b[1]), coefficients = as.list(setNames(num(b[-1]), colnames(Xi)))) }))))
# cox: lung, complete cases of 7 covariates, Breslow ties (glmnet's)
lu <- read.csv(file.path(D, "lung.csv")); lu <- lu[complete.cases(lu), ]
Xl <- as.matrix(lu[, c("age", "sex", "ph.ecog", "ph.karno", "pat.karno", "meal.cal", "wt.loss")])
yl <- Surv(lu$time, lu$status == 1)
fl <- glmnet(Xl, yl, family = "cox")
pickl <- c(1, 10, 20, 30)
lasso$cox_lung <- list(
  data = "lung.csv", rows = "complete cases (n = 167 or as stated)", n = nrow(lu), event = "status == 1", ties = "breslow", features = colnames(Xl), standardize = TRUE,
  lambda_max = num(fl$lambda[1]), path_length = length(fl$lambda),
  at = lapply(pickl, function(i) { b <- coef(fl)[, i]; list(lambda = num(fl$lambda[i]), coefficients = as.list(setNames(num(b), colnames(Xl)))) }))
write_json(lasso, "lasso-glmnet.json")

## ---------------------------------------------------------------- conditional-independence tests (as MXM defines them)
ci <- list()
# Fisher z on partial correlation, Student t p-value with df = n - |Z| - 3 (MXM testIndFisher)
fisher <- function(d, x, yv, Z) {
  n <- nrow(d)
  rx <- if (length(Z)) resid(lm(d[[x]] ~ ., data = d[, Z, drop = FALSE])) else d[[x]] - mean(d[[x]])
  ry <- if (length(Z)) resid(lm(d[[yv]] ~ ., data = d[, Z, drop = FALSE])) else d[[yv]] - mean(d[[yv]])
  r <- cor(rx, ry); df <- n - length(Z) - 3; stat <- sqrt(df) * abs(atanh(r))
  list(x = x, given = as.list(Z), partial_correlation = num(r), df = df, statistic = num(stat), p = num(2 * pt(stat, df, lower.tail = FALSE)), log_p = num(log(2) + pt(stat, df, lower.tail = FALSE, log.p = TRUE)))
}
ci$fisher_diabetes <- list(data = "diabetes.csv", outcome = "progression", test = "Fisher z of the partial correlation; p from Student t with df = n - |Z| - 3, two-sided",
  cases = list(fisher(db, "bmi", "progression", character(0)), fisher(db, "bmi", "progression", c("s5", "bp")),
               fisher(db, "age", "progression", c("bmi", "s5")), fisher(db, "s1", "progression", c("s2", "s5", "bmi"))))
# logistic LR test: deviance(Z) - deviance(Z + X), chi-square
lr_logit <- function(d, x, Z) {
  f0 <- if (length(Z)) glm(reformulate(Z, "yy"), data = d, family = binomial) else glm(yy ~ 1, data = d, family = binomial)
  f1 <- glm(reformulate(c(Z, x), "yy"), data = d, family = binomial)
  st <- deviance(f0) - deviance(f1); df <- length(coef(f1)) - length(coef(f0))
  list(x = x, given = as.list(Z), statistic = num(st), df = df, p = num(pchisq(st, df, lower.tail = FALSE)), log_p = num(pchisq(st, df, lower.tail = FALSE, log.p = TRUE)))
}
bcd <- bc; bcd$yy <- as.integer(bcd$diagnosis == levels(yb)[2])
ci$logistic_breast_cancer <- list(data = "breast_cancer.csv", outcome = "diagnosis", positive_class = levels(yb)[2], test = "likelihood ratio of nested logistic regressions (no penalty)",
  cases = list(lr_logit(bcd, "mean_texture", character(0)), lr_logit(bcd, "mean_texture", c("worst_concave_points", "worst_perimeter")),
               lr_logit(bcd, "mean_radius", c("worst_radius"))))
# multinomial LR test (nnet::multinom)
lr_multi <- function(d, x, Z) {
  f0 <- multinom(reformulate(if (length(Z)) Z else "1", "species"), data = d, trace = FALSE, maxit = 1000, reltol = 1e-12)
  f1 <- multinom(reformulate(c(Z, x), "species"), data = d, trace = FALSE, maxit = 1000, reltol = 1e-12)
  st <- deviance(f0) - deviance(f1); df <- f1$edf - f0$edf
  list(x = x, given = as.list(Z), statistic = num(st), df = df, p = num(pchisq(st, df, lower.tail = FALSE)), log_p = num(pchisq(st, df, lower.tail = FALSE, log.p = TRUE)))
}
ci$multinomial_iris <- list(data = "iris.csv", outcome = "species", test = "likelihood ratio of nested multinomial logistic regressions (nnet::multinom)",
  cases = list(lr_multi(ir, "sepal_width_cm", character(0)), lr_multi(ir, "sepal_width_cm", c("sepal_length_cm"))))
# Cox LR test (Efron ties), categorical predictor as dummies
lr_cox <- function(d, x, Z) {
  f0 <- if (length(Z)) coxph(reformulate(Z, "Surv(time, status == 1)"), data = d) else NULL
  f1 <- coxph(reformulate(c(Z, x), "Surv(time, status == 1)"), data = d)
  l0 <- if (is.null(f0)) f1$loglik[1] else f0$loglik[2]
  st <- 2 * (f1$loglik[2] - l0); df <- length(coef(f1)) - (if (is.null(f0)) 0 else length(coef(f0)))
  list(x = x, given = as.list(Z), statistic = num(st), df = df, p = num(pchisq(st, df, lower.tail = FALSE)), log_p = num(pchisq(st, df, lower.tail = FALSE, log.p = TRUE)))
}
lu2 <- read.csv(file.path(D, "lung.csv")); lu2 <- lu2[complete.cases(lu2[, c("time", "status", "age", "sex", "ph.ecog", "ph.karno")]), ]
lu2$ecog_f <- factor(lu2$ph.ecog)
ci$cox_lung <- list(data = "lung.csv", rows = "complete cases of time, status, age, sex, ph.ecog, ph.karno", n = nrow(lu2), event = "status == 1", ties = "efron",
  test = "likelihood ratio of nested Cox models; a categorical predictor enters as L - 1 dummies (df = L - 1)",
  cases = list(lr_cox(lu2, "sex", character(0)), lr_cox(lu2, "age", c("sex", "ph.ecog")),
               lr_cox(lu2, "ph.karno", c("sex", "ph.ecog")),
               c(lr_cox(lu2, "ecog_f", c("sex")), list(note = "ph.ecog as a categorical feature with levels 0,1,2,3"))))
write_json(ci, "ci-tests.json")
cat("written\n")
