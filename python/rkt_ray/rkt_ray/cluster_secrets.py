"""The hidden-input secrets, handed from the driver's environment to the judges only.

rkt reads its secrets from the environment (framework/inputs/hidden_inputs.h): RKT_SECRET_SEED,
mixed into every seed, and RKT_HIDDEN_SUITE, a file of hidden cases (a path: the file must be at
that path on every node), with RKT_HIDDEN_VERBOSE. The driver takes them from its own
environment and gives them to each judge through Ray's runtime_env (`env_vars`); it never prints
them, never writes them into a record or a run folder, and leaves them out of the environment of
the programs it runs itself (rkt merge). rkt removes them from its own environment once read, so
a kernel's worker never sees them.

Ray keeps a runtime_env in its control store (GCS) for the life of the job: whoever can read the
cluster's dashboard or state API can read them there. docs/scale_out.md says so.
"""
from __future__ import annotations

import os
from typing import Dict, Mapping

SECRET_VARIABLES = ("RKT_SECRET_SEED", "RKT_HIDDEN_SUITE", "RKT_HIDDEN_VERBOSE")


def secret_environment(environment: Mapping[str, str] = os.environ) -> Dict[str, str]:
    """The secrets set in `environment`, for the judges' runtime_env."""
    return {name: environment[name] for name in SECRET_VARIABLES if environment.get(name)}


def without_secrets(environment: Mapping[str, str] = os.environ) -> Dict[str, str]:
    """`environment` less the secrets: for the driver's own children."""
    return {name: value for name, value in environment.items() if name not in SECRET_VARIABLES}
