"""What a run in a box left: its report, how it ended, and why in the learner's words."""

from __future__ import annotations

from typing import Any


class BoxResult:
    """What a run left: `data` (the bytes written to the report channel), `code`
    (the harness's exit code, negative for a signal, None when unknown), and
    `ended`: 'exit' (the harness ended by itself), 'timeout', 'memory',
    'processes' (a limit was reached and every process was ended), 'stopped' (the
    studio ended it: `stop()`) or 'lost' (the supervisor itself was killed or
    stopped: only possible without a box).
    `output`: what the child printed (capped); `boxed`: it ran in a box;
    `killed`: processes ended after the harness; `seconds` of wall time."""

    def __init__(
        self,
        data: bytes,
        code: int | None,
        ended: str,
        output: str = "",
        boxed: bool = False,
        killed: int = 0,
        seconds: float = 0.0,
        limits: dict[str, Any] | None = None,
    ) -> None:
        self.data, self.code, self.ended, self.output = data, code, ended, output
        self.boxed, self.killed, self.seconds, self.limits = boxed, killed, seconds, limits or {}

    def __repr__(self) -> str:
        return (
            f"BoxResult(ended={self.ended!r}, code={self.code!r}, boxed={self.boxed}, killed={self.killed}, "
            f"seconds={self.seconds:.2f}, data={self.data[:200]!r}, output={self.output[:200]!r})"
        )

    @property
    def timed_out(self) -> bool:
        return self.ended == "timeout"

    def message(self) -> str:
        """Why the run ended, in the learner's terms ('' when the harness ended by itself)."""
        limits = self.limits
        if self.ended == "timeout":
            return f"did not finish within {limits.get('timeout', 0):g} s and was stopped"
        if self.ended == "memory":
            return f"used more than {limits.get('memory', 0) >> 20} MB of memory (all its processes together)"
        if self.ended == "processes":
            return f"started more than {limits.get('processes', 0)} processes at once"
        if self.ended == "disk":
            return f"wrote more than {limits.get('folder', 0) >> 20} MB into its folder"
        if self.ended == "stopped":
            return "was stopped before it finished"
        if self.ended == "lost":
            return (
                f"its supervisor was stopped or killed after {self.seconds:.1f} s (by the code it ran?): "
                "the run was ended"
            )
        if self.code is not None and self.code < 0:
            return f"its process was killed by signal {-self.code} (out of memory? a crash?)"
        return ""

    def status(self) -> dict[str, Any]:
        """The supervisor's status as plain data (run_supervised's second result)."""
        return {
            "code": self.code,
            "timed_out": self.timed_out,
            "ended": self.ended,
            "killed": self.killed,
            "seconds": round(self.seconds, 3),
            "boxed": self.boxed,
            "message": self.message(),
        }
