"""Errors that reach the user as one line: what happened, where, what to do."""


class KernelbookError(Exception):
    """A problem the user can fix; the CLI prints it as one line and exits 2."""
