"""The harness version a suite's runs are played under (BALROG re-ran its leaderboard's
entries after fixing an environment and kept the older figures beside them; a reader
must be able to tell which harness a figure came from).

A suite's version is its declared protocol version (`Suite.protocol_version`, raised by
hand when its protocol or prompt templates change what a run measures) and a digest of
the installed versions of the distributions its games are built on
(`Suite.engine_packages`), computed once per process. It is stored on every run as
"v<protocol>+<digest>", e.g. "v2+1a2b3c4d"; two values are the same harness when the
strings are equal.

Two stored values are not versions: runs made before versions were stored, and runs
imported from another harness's logs (BALROG's own evaluator). Plain Python, no Django.
"""

from __future__ import annotations

import dataclasses
import hashlib
from functools import cache, cached_property, lru_cache
from importlib import metadata

from envs.suite import Suite

# Runs stored before the arena stamped them: their harness is unknown.
BEFORE_VERSIONING = "before-versioning"
# Runs read from another harness's logs (arena.balrog_results): not played here at all.
IMPORTED = "imported"
NOT_VERSIONS = (BEFORE_VERSIONING, IMPORTED)
DIGEST_LENGTH = 8


def package_versions(packages) -> dict[str, str]:
    """The installed version of each distribution ("absent" for one not installed: a
    suite whose engine is missing plays nothing, and its digest says so)."""
    versions = {}
    for name in sorted(packages):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def engines_digest(versions: dict[str, str]) -> str:
    """A short digest of name=version pairs, whatever their order."""
    text = "\n".join(f"{name}={version}" for name, version in sorted(versions.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_LENGTH]


def version_string(protocol: int, digest: str) -> str:
    return f"v{protocol}+{digest}"


def current_version(suite: Suite) -> str:
    """The version this process plays `suite` under."""
    return _version_of(suite.protocol_version, tuple(suite.engine_packages))


@cache
def _version_of(protocol: int, packages: tuple[str, ...]) -> str:
    # Computed once per process: the installed distributions do not change under it.
    return version_string(protocol, engines_digest(package_versions(packages)))


@dataclasses.dataclass(frozen=True)
class Stamp:
    """A stored harness value read back: a version (protocol and digest), or one of
    NOT_VERSIONS."""

    value: str
    protocol: int | None
    digest: str

    @classmethod
    def parse(cls, value: str) -> "Stamp":
        return _parsed(cls, value)

    @property
    def imported(self) -> bool:
        return self.value == IMPORTED

    def label(self, suite: Suite) -> str:
        """How a page names it: "BALROG suite v2 (engines 1a2b3c4d)"."""
        if self.imported:
            return "imported from another harness's logs"
        if self.protocol is None:
            return "unknown (played before versioning)"
        return f"{suite.title} suite v{self.protocol} (engines {self.digest})"


@lru_cache(maxsize=4096)
def _parsed(cls: type[Stamp], value: str) -> Stamp:
    # Boards ask for the standing of every run behind them, several times over, and
    # the stored values are few: each is parsed once (a Stamp is immutable).
    head, _, digest = (value or "").partition("+")
    if head.startswith("v") and head[1:].isdigit() and digest:
        return cls(value, int(head[1:]), digest)
    return cls(value or BEFORE_VERSIONING, None, "")


@dataclasses.dataclass(frozen=True)
class Standing:
    """A run's harness against the suite's current one."""

    played: Stamp
    current: Stamp
    suite: Suite

    @property
    def is_current(self) -> bool:
        return self.played.value == self.current.value

    @property
    def is_old(self) -> bool:
        """Played here under another harness than today's (imported runs were not played
        here, so playing them again is no update of theirs)."""
        return not self.is_current and not self.played.imported

    @cached_property
    def note(self) -> str:
        """One sentence for the row: "played under BALROG suite v3; current v4"."""
        played, current, title = self.played, self.current, self.suite.title
        if self.is_current:
            return f"played under the current {title} suite v{current.protocol} (engines {current.digest})"
        if played.imported:
            return f"imported from another harness's logs; the arena's current harness is {title} suite v{current.protocol}"
        if played.protocol is None:
            return f"played before harness versions were recorded; current {title} suite v{current.protocol}"
        if played.protocol != current.protocol:
            return f"played under {title} suite v{played.protocol}; current v{current.protocol}"
        return (
            f"played under {title} suite v{played.protocol} with other engine versions "
            f"(engines {played.digest}); current engines {current.digest}"
        )


def standing(stored: str, suite: Suite) -> Standing:
    return Standing(Stamp.parse(stored), Stamp.parse(current_version(suite)), suite)


def version_for_task(task_id: str) -> str:
    """The current version of the task's suite ("" for a task the arena does not know,
    which no worker can play)."""
    from envs.registry import suite_of  # the registry imports every suite package

    try:
        suite = suite_of(task_id)
    except KeyError:
        return ""
    return current_version(suite)
