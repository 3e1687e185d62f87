# Robustness tests: robust_locks (see the test programs this file registers).
