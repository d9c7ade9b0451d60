# Peers of bench/quality.bench.ts for survival outcomes: R's survival::coxph (Efron ties) on every feature, fitted
# on the training split (missing values imputed by the training means), its linear predictor's concordance on the
# held-out split (Harrell's C, higher risk = earlier event).
#
#   Rscript bench/quality_peers.R TRAIN.csv TEST.csv
#
# The CSV files (written by the bench) have a header; the last two columns are the time and the event (1, 0); the
# others the design (numbers, one-hot columns for categorical features). Prints {"metric": {"coxph": C}}.
suppressMessages(library(survival))
args <- commandArgs(trailingOnly = TRUE)
train <- read.csv(args[1], check.names = FALSE)
test <- read.csv(args[2], check.names = FALSE)
p <- ncol(train) - 2
x <- as.matrix(train[, 1:p, drop = FALSE])
z <- as.matrix(test[, 1:p, drop = FALSE])
means <- colMeans(x, na.rm = TRUE)
for (j in seq_len(p)) {
  x[is.na(x[, j]), j] <- means[j]
  z[is.na(z[, j]), j] <- means[j]
}
keep <- apply(x, 2, function(v) var(v) > 0)
x <- x[, keep, drop = FALSE]
z <- z[, keep, drop = FALSE]
fit <- coxph(Surv(train[[p + 1]], train[[p + 2]]) ~ x, ties = "efron")
b <- coef(fit)
b[is.na(b)] <- 0
lp <- as.vector(z %*% b)
cc <- concordance(Surv(test[[p + 1]], test[[p + 2]]) ~ lp, reverse = TRUE)$concordance
cat(sprintf('{"metric": {"coxph": %.10f}}\n', cc))
