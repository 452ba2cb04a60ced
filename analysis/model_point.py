"""One model prediction next to its measurement, as the study modules declare them for the
scoreboard of the models (analysis/scoreboard.py).

Each module of analysis/studies/ that compares a performance model with measurements exports
MODEL_POINTS = {id: fn}, fn(results) -> List[ModelPoint]: the pairs its renderer of that id
compares, read with the renderer's own helpers.
"""

from __future__ import annotations

import math
from typing import NamedTuple


class ModelPoint(NamedTuple):
    model: str        # the model and its source, e.g. "SpMV time (models/spmv_time.hpp)"
    point: str        # what was measured, e.g. "double/sellp/lap2d_5pt_1000x1000"
    predicted: float  # the model's value
    measured: float   # the measured value, in the same unit
    unit: str         # e.g. "s", "us", "bytes", "x" (a ratio of times)

    @property
    def ratio(self) -> float:
        """predicted / measured (NaN unless both are finite and measured is positive)."""
        if not (math.isfinite(self.predicted) and math.isfinite(self.measured)) \
                or self.measured <= 0:
            return math.nan
        return self.predicted / self.measured
