# Robustness tests: robust_atomics (see the test programs this file registers).
