"""A small wrapper around one Stockfish process, shared by the chess task's opponent and expert.

The protocol (LMAct §2.2 "Chess") asks for two players:

* the environment's opponent, "Stockfish level 0 restricted to one node";
* the expert, full-strength Stockfish (level 20) with 50 ms per move.

Both have to be reproducible here: the same seed must give the same game, and an
episode interrupted half-way is resumed by replaying its stored actions.
Stockfish's own weakening is not reproducible: below level 20 it searches the four
best moves (MultiPV 4) and then picks one with a random perturbation whose
generator is seeded from the wall clock, so two runs of the same position differ.
We therefore run the same depth-1, four-line search with the engine's weakening
switched off (which is deterministic once its hash table is cleared) and apply
Stockfish's published selection rule ourselves, with a `random.Random` the task
seeds (see `weakened_choice`). A one-node search limit is what Stockfish turns
into exactly this: it always finishes its first iteration, which at MultiPV 4 is
these four depth-1 lines. The expert gets a fixed node budget in place of the
50 ms clock (`EXPERT_NODES`, about 50 ms on the development machine), again so
that its moves do not depend on the machine's speed or load.

One `Stockfish` object owns at most one engine process, started on first use and
stopped by `close()` or when the object is garbage-collected. This module does not
import Django.
"""

from __future__ import annotations

import os
import random
import shutil
import threading
import weakref

import chess
import chess.engine

DEFAULT_PATH = "/usr/games/stockfish"

# Stockfish's handicap rule (its Skill::pick_best), with the constants of the
# Debian build (Stockfish 15.1): scores in internal units, where one pawn of
# material in the middlegame is 126 units and the centipawns printed over UCI
# are internal units × 100 / 361.
_PAWN_VALUE = 126
_UNITS_PER_CENTIPAWN = 361 / 100
_MATE_VALUE = 32000
_HANDICAP_LINES = 4

# About 50 ms of single-threaded search on the development machine (~580k nodes/s).
EXPERT_NODES = 30_000


def stockfish_path() -> str:
    """The engine binary: $ARENA_STOCKFISH, else the Debian package's, else `stockfish` on $PATH."""
    configured = os.environ.get("ARENA_STOCKFISH")
    if configured:
        return configured
    if os.path.exists(DEFAULT_PATH):
        return DEFAULT_PATH
    return shutil.which("stockfish") or DEFAULT_PATH


def _internal_score(score: chess.engine.PovScore, turn: chess.Color) -> int:
    """A UCI score seen from the side to move, in Stockfish's internal units."""
    relative = score.pov(turn)
    mate = relative.mate()
    if mate is not None:
        # "mate in n" is found n moves (2n - 1 plies) away; "mated in n" 2n plies away.
        return _MATE_VALUE - (2 * mate - 1) if mate > 0 else -_MATE_VALUE + 2 * (-mate)
    return round(relative.score() * _UNITS_PER_CENTIPAWN)


def weakened_choice(candidates: list[tuple[chess.Move, int]], level: int, rng: random.Random) -> chess.Move:
    """Stockfish's rule for playing below full strength, driven by `rng`.

    `candidates` are the engine's best lines, best first, each a first move and its
    score for the side to move in internal units. Every candidate's score is raised
    by a bonus made of two parts: a fixed share of its gap to the best score (the
    share grows as the level drops: weakness = 120 - 2 × level, share = weakness /
    128) and a random part, a uniform integer in [0, weakness) times the spread of
    the scores (capped at one pawn) / 128. The candidate with the highest raised
    score is played, a later one winning ties. At level 20 (full strength) the rule
    is off and the best line is played.
    """
    if not candidates:
        raise ValueError("no candidate moves")
    if level >= 20:
        return candidates[0][0]
    weakness = 120 - 2 * level
    top = candidates[0][1]
    spread = min(top - candidates[-1][1], _PAWN_VALUE)
    best_move, best_value = candidates[0][0], None
    for move, score in candidates:
        # The engine divides with C integer division, which truncates toward zero.
        bonus = int((weakness * (top - score) + spread * rng.randrange(weakness)) / 128)
        if best_value is None or score + bonus >= best_value:
            best_move, best_value = move, score + bonus
    return best_move


def _close_engine(engine: chess.engine.SimpleEngine) -> None:
    try:
        engine.quit()
    except Exception:  # already dead, or the interpreter is shutting down
        try:
            engine.close()
        except Exception:
            pass


class Stockfish:
    """One lazily started engine process (Threads=1), cleared before every search."""

    def __init__(self, path: str | None = None):
        self.path = path or stockfish_path()
        self._engine: chess.engine.SimpleEngine | None = None
        self._finalizer: weakref.finalize | None = None
        self._lock = threading.Lock()

    # -- lifetime ----------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._engine is not None

    def _start(self) -> chess.engine.SimpleEngine:
        if self._engine is None:
            engine = chess.engine.SimpleEngine.popen_uci(self.path)
            try:
                engine.configure({"Threads": 1, "Hash": 16})
            except Exception:
                _close_engine(engine)
                raise
            self._engine = engine
            # Stops the process when this object is collected or at interpreter exit;
            # the callback holds the engine only, never `self`.
            self._finalizer = weakref.finalize(self, _close_engine, engine)
        return self._engine

    def close(self) -> None:
        """Stop the engine process; safe to call any number of times."""
        with self._lock:
            finalizer, self._finalizer, self._engine = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    def _run(self, search):
        """Run `search(engine)`, restarting the process once if it has died."""
        with self._lock:
            for attempt in (1, 2):
                engine = self._start()
                try:
                    return search(engine)
                except chess.engine.EngineTerminatedError:
                    finalizer, self._finalizer, self._engine = self._finalizer, None, None
                    if finalizer is not None:
                        finalizer()
                    if attempt == 2:
                        raise

    # -- searches ----------------------------------------------------------------
    def top_lines(self, board: chess.Board, lines: int = _HANDICAP_LINES, depth: int = 1) -> list[tuple[chess.Move, int]]:
        """The best `lines` moves of a fresh search `depth` plies deep, best first, with internal scores."""

        def search(engine):
            # A new `game` object makes python-chess send ucinewgame, which clears the
            # hash table: the result then depends on the position only.
            return engine.analyse(
                board,
                chess.engine.Limit(depth=depth),
                multipv=lines,
                game=object(),
                options={"Skill Level": 20},
            )

        infos = self._run(search)
        ranked: list[tuple[chess.Move, int]] = []
        seen: set[chess.Move] = set()
        for info in infos:
            pv, score = info.get("pv"), info.get("score")
            if not pv or score is None or pv[0] in seen:
                continue
            seen.add(pv[0])
            ranked.append((pv[0], _internal_score(score, board.turn)))
        return ranked

    def weakened_move(self, board: chess.Board, level: int, rng: random.Random) -> chess.Move:
        """The move of Stockfish at skill `level`, with `rng` as its dice. Stockfish picks
        a handicapped move once its search reaches depth 1 + level (Skill::time_to_pick);
        at level 0 that is the depth-1 search a one-node limit yields."""
        legal = list(board.legal_moves)
        if not legal:
            raise ValueError("the side to move has no legal move")
        if len(legal) == 1:
            return legal[0]
        candidates = self.top_lines(board, min(_HANDICAP_LINES, len(legal)), depth=1 + level)
        if not candidates:  # not expected; keep the game going with the engine's own choice
            return self.best_move(board, nodes=1)
        return weakened_choice(candidates, level, rng)

    def best_move(self, board: chess.Board, nodes: int = EXPERT_NODES) -> chess.Move:
        """Full-strength Stockfish's move after a fresh search of `nodes` nodes."""

        def search(engine):
            return engine.play(
                board,
                chess.engine.Limit(nodes=nodes),
                game=object(),
                options={"Skill Level": 20},
            )

        result = self._run(search)
        if result.move is None:
            raise RuntimeError("Stockfish returned no move")
        return result.move
