"""The error every frontend and exporter raises for bad input: one line, no traceback."""


class FrontendError(Exception):
    """A model that cannot be read or converted; the message is shown to the user as is."""
