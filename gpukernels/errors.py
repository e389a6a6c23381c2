"""Errors the engine raises for bad input.

The command-line front end turns :class:`InputError` into one clear line on
stderr and a non-zero exit, never a traceback.
"""


class InputError(ValueError):
    """Bad user input: a file, a line or an option that cannot be used.

    Parameters
    ----------
    message : str
        What is wrong, in words a user can act on.
    path : str, optional
        The file concerned.
    line : int, optional
        The 1-based line number in ``path``.
    """

    def __init__(self, message, path=None, line=None):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)
