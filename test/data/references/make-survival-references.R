# Reference values for the engine's survival plots and survival predictions, computed with R and the survival
# package (versions written into the JSON), from lung.csv in .. (test/data). Writes survival-references.json beside it.
# Run from anywhere: Rscript make-survival-references.R (needs apt packages r-base-core r-cran-survival).
suppressMessages(library(survival))
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
D <- file.path(here, "..")
# minimal JSON writer (no jsonlite on this machine), as make-references.R
js <- function(x, ind = "") {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    nm <- names(x); inner <- paste0(ind, "  ")
    if (!is.null(nm)) {
      parts <- mapply(function(k, v) paste0(inner, '"', k, '": ', js(v, inner)), nm, x)
      return(paste0("{\n", paste(parts, collapse = ",\n"), "\n", ind, "}"))
    }
    parts <- sapply(x, function(v) paste0(inner, js(v, inner)))
    return(paste0("[\n", paste(parts, collapse = ",\n"), "\n", ind, "]"))
  }
  if (is.character(x)) return(paste0("[", paste(paste0('"', x, '"'), collapse = ", "), "]"))
  s <- format(x, digits = 12, scientific = TRUE, trim = TRUE)
  s <- ifelse(is.finite(x) & x == round(x) & abs(x) < 1e9, format(x, scientific = FALSE, trim = TRUE), s)
  s[!is.finite(x)] <- "null"
  paste0("[", paste(s, collapse = ", "), "]")
}
lung <- read.csv(file.path(D, "lung.csv"))   # status: 1 = dead, 0 = censored
km <- function(fit) list(time = fit$time, atRisk = fit$n.risk, events = fit$n.event, censored = fit$n.censor,
                         survival = fit$surv, lower = fit$lower, upper = fit$upper)

ref <- list(R = R.version.string, survival = as.character(packageVersion("survival")))
# Kaplan-Meier (conf.type = "log", the default) of every sample and of each sex
ref$kmAll <- km(survfit(Surv(time, status) ~ 1, data = lung))
ref$kmMale <- km(survfit(Surv(time, status) ~ 1, data = lung[lung$sex == 1, ]))
# log-rank tests: sex (2 groups) and ph.ecog 0, 1, 2 (3 groups; one sample with 3 and one missing left out)
ecog <- lung[!is.na(lung$ph.ecog) & lung$ph.ecog <= 2, ]
lr2 <- survdiff(Surv(time, status) ~ sex, data = lung)
lr3 <- survdiff(Surv(time, status) ~ ph.ecog, data = ecog)
ref$logRankSex <- list(chiSquare = lr2$chisq, df = length(lr2$n) - 1, pValue = pchisq(lr2$chisq, length(lr2$n) - 1, lower.tail = FALSE))
ref$logRankEcog <- list(chiSquare = lr3$chisq, df = length(lr3$n) - 1, pValue = pchisq(lr3$chisq, length(lr3$n) - 1, lower.tail = FALSE))

# Cox model on age, sex, ph.ecog (complete cases, Efron ties), survival of three samples at three times from the
# Breslow estimate of the baseline cumulative hazard (ctype = 1), and their median survival times
cc <- lung[complete.cases(lung[, c("time", "status", "age", "sex", "ph.ecog")]), ]
fit <- coxph(Surv(time, status) ~ age + sex + ph.ecog, data = cc, ties = "efron")
newdata <- cc[c(1, 2, 5), c("age", "sex", "ph.ecog")]
times <- c(180, 365, 540)
sf <- survfit(fit, newdata = newdata, ctype = 1)
s <- summary(sf, times = times)
ref$cox <- list(
  features = c("age", "sex", "ph.ecog"),
  coefficients = unname(coef(fit)),
  newdata = lapply(seq_len(nrow(newdata)), function(i) unname(as.numeric(newdata[i, ]))),
  times = times,
  # survival[[sample]][[time]]
  survival = lapply(seq_len(nrow(newdata)), function(i) unname(s$surv[, i])),
  median = unname(quantile(sf, probs = 0.5, conf.int = FALSE))
)
writeLines(js(ref), file.path(here, "survival-references.json"))
