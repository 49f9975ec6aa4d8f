"""Wrong twins, which the checks must refuse, naming the task:
- relu returns its input (tests/compiled_baseline_test.sh: the compiled baseline refuses it);
- softmax is off by 0.1% everywhere, ten times the fp32 tolerance (tests/twins_check_test.sh);
- sum_dim raises (tests/twins_check_test.sh: the error is reported with the task's name)."""
import torch

TWINS = {
    "relu": lambda x: (x * 1.0,),
    "softmax": lambda x: (torch.softmax(x, -1) * 1.001,),
    "sum_dim": lambda x: (x.sum(7),),  # IndexError: dimension out of range
}
