# Robustness tests: robust_rma (see the test programs this file registers).
