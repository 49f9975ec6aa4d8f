// Everything a kernel file needs: the light tensor view, the call, and ROBUST_KERNEL_TEST.
// Include this from `.cu` and `.cpp` kernel files; it pulls in no LibTorch header.
#pragma once

#include "rkt/kernel_call.h"
#include "rkt/precision.h"
#include "rkt/registration.h"
#include "rkt/tensor_view.h"
