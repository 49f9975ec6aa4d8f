"""A wrong twin, for tests/compiled_baseline_test.sh: relu that returns its input. The compiled
baseline must refuse it (the twin disagrees with the C++ reference) rather than time it."""

TWINS = {
    "relu": lambda x: (x * 1.0,),
}
