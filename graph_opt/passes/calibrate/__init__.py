"""calibrate and the calibration statistics it records."""

from graph_opt.passes.calibrate.calibrate import CalibratePass

__all__ = ["CalibratePass"]
