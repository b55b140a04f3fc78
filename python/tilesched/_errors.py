"""The exceptions of tilesched besides ValueError (which bad input raises, with the command
line's one-line message)."""


class InvalidSchedule(ValueError):
    """A schedule the evaluator rejects (SPEC sections 3-7).

    str(error) is the evaluator's one-line message, as `tilesched evaluate` prints it. The
    attributes say where it points, each None when the message names none:

    - rule: "rule 3.8", "SPEC 7b", ...
    - subgraph: the subgraph's index
    - op: the first op id it names
    - tensor: the first tensor id it names
    - object: the first op, tensor or tile it names ("op 0", "tensor 3", "tile 0")
    """

    def __init__(self, message, *, rule=None, subgraph=None, op=None, tensor=None, object=None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.subgraph = subgraph
        self.op = op
        self.tensor = tensor
        self.object = object


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a schedule() or sweep(); `result` keeps what it had.

    For schedule(): a ScheduleResult with the best schedule found before the stop (judged by the
    evaluator, as `tilesched schedule` writes it on SIGINT). For sweep(): the rows of the points
    that finished (Rows); rerun with the same output file and resume=True for the rest.
    """

    def __init__(self, result):
        super().__init__("stopped by Ctrl-C; what was found so far is in .result")
        self.result = result
