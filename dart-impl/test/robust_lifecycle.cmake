# Robustness tests: robust_lifecycle (see the test programs this file registers).
