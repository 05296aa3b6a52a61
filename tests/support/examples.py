"""How many generated requests an operation gets (the fuzzer, the OpenAPI example tests).

``NETPLATFORM_<NAME>_EXAMPLES`` sets a suite's count outright. Otherwise its default is scaled by
``NETPLATFORM_TEST_EXAMPLE_SCALE`` (default 1): CI's PostgreSQL run sets 0.5 and sends half as
many derandomized requests per operation as its SQLite run (every operation still gets some:
what differs between the stores is how the requests are stored), which keeps CI within its time.
"""

from __future__ import annotations

import math
import os

SCALE_ENV = "NETPLATFORM_TEST_EXAMPLE_SCALE"


def example_count(variable: str, default: int) -> int:
    given = os.environ.get(variable)
    if given:
        return int(given)
    scale = float(os.environ.get(SCALE_ENV) or 1)
    return max(1, math.ceil(default * scale))
