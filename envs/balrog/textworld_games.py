"""BALROG's three TextWorld games as arena tasks (BALROG App. C): treasure hunter, the
cooking game and coin collector, played from the 75 game files BALROG evaluates
(envs.balrog.textworld_data) with TextWorld's own interpreters.

Protocol, as BALROG's TextWorld environment has it:
- `reset(seed)` plays game `(seed + 1) mod 25` of the family, its game files sorted by
  name: the game BALROG's harness gives to a task's (seed + 1)-th episode in a worker
  (`envs.balrog.textworld_data.game_for_seed`).
- An episode lasts at most 80 steps; a step's reward is the rise of the game's score,
  and the episode's progress is score / maximum score, or 100 once the game is won.
- The game's objective is cut out of every observation, as BALROG does ("hidden", the
  default); the setting `objective` = "shown" keeps it in the first observation.
- Observations are the game's own text, without the title banner; BALROG gives no
  short-term context for TextWorld, so `Observation.context` stays empty.
- Every output reaches the game as it is, as BALROG's action space accepts any text:
  several lines, chained commands ("go east. go west"), out-of-game verbs and the empty
  output included. The game runs with the information BALROG requests of TextWorld (no
  admissible commands: with that request TextWorld's bookkeeping raises on a chained
  command); the admissible commands, which only the random baseline needs, come from a
  second interpreter that plays the same commands (`AdmissibleCommands`).
- An output that stops the interpreter (quitting and confirming) ends the episode at the
  next step, where BALROG's step raises and its harness drops the episode; the arena keeps
  it with its progress (a labelled deviation). An output that would make the interpreter
  read or write files (save, restore, script, transcript) plays the default action "help"
  (a labelled deviation: BALROG sends it; `touches_files`).
"""

from __future__ import annotations

import re
import threading
import warnings
from typing import ClassVar

from envs.balrog import textworld_prompts as prompts
from envs.balrog.protocol import BalrogTask, Outcome
from envs.balrog.textworld_admissible import AdmissibleCommands
from envs.balrog.textworld_data import Game, game_for_seed
from envs.core import ExpertPolicy, Observation, RandomLegalPolicy

# TextWorld parses game logic and commands with tatsu, whose parser state is shared by
# every thread of a process; the arena plays blocking tasks in worker threads, so two
# episodes calling into TextWorld at once broke each other (IndexError inside tatsu).
# Every call into TextWorld holds this lock: a step takes ~8 ms, a start ~0.3 s.
TEXTWORLD_LOCK = threading.RLock()  # re-entrant: starting a game closes the previous one

OBJECTIVE_SETTING = "objective"
OBJECTIVE_CHOICES = ("hidden", "shown")
GAMES_PER_FAMILY = 25
# Frotz, which runs the cooking games (.z8), seeds its random numbers from the clock
# unless given a seed; a fixed one keeps every machine on the same episode. (The glulx
# interpreter of the other two families takes none.) Jericho reads 0 as "no seed".
INTERPRETER_SEED = 1
# What BALROG's TextWorld factory asks of TextWorld (its config's `textworld_kwargs`):
# the game prints what this request makes it print, so the arena asks the same.
BALROG_REQUEST = {"objective": True, "description": True, "score": True, "max_score": True, "won": True}
# Verbs with which the interpreter reads or writes files (`touches_files`).
FILE_VERBS = frozenset({"save", "restore", "script", "transcript"})
_COMMAND_SEPARATORS = re.compile(r"[\n\r.,;]|\bthen\b")
_WORD = re.compile(r"[a-z]+")
# What an observation says when the game printed nothing (e.g. "goal" once the
# objective is cut out): chat APIs refuse empty messages.
NOTHING_PRINTED = "(The game printed nothing.)"
GAME_STOPPED = "(The game has stopped: the interpreter quit after the previous command.)"

# Jericho warns that it cannot read the score of TextWorld's .z8 games; TextWorld reads
# score, turns and the end of the game from the game's own output instead.
warnings.filterwarnings("ignore", message=r"Game '.*' is not fully supported", module="jericho")


def touches_files(output: str) -> bool:
    """Whether the game would read or write a file of the worker's machine for `output`.

    The cooking games' interpreter (Jericho's frotz, in the worker's process) saves a game
    and writes a transcript into the current directory, and restoring reads what another
    episode saved there; so a command of the output — a line, or a part between full
    stops, commas, semicolons or "then", as the game splits them — that starts with one
    of these verbs plays the default action instead. (No reply of the 33,002 TextWorld
    replies in BALROG's leaderboard submissions holds one.)
    """
    for command in _COMMAND_SEPARATORS.split(output.lower()):
        words = _WORD.findall(command)
        if words and words[0] in FILE_VERBS:
            return True
    return False


def clean_feedback(raw: str, objective: str, show_objective: bool) -> str:
    """The game's text as the agent reads it.

    Hidden objective (BALROG): only what follows the objective's last occurrence is
    kept, which also drops the title banner printed before it, trimmed at both ends and
    otherwise as the game printed it — blank lines, and the cooking games' ">" prompt
    padded with spaces before their status line (room, score/turns), as in BALROG's
    observations (App. C.5). Shown objective (the arena's option): the text starts at
    the objective, and the prompt, its padding and runs of blank lines are tidied away.
    """
    if not show_objective:
        return raw.split(objective)[-1].strip() or NOTHING_PRINTED
    start = raw.find(objective)
    text = raw[start:] if start > 0 else raw
    text = re.sub(r"^>[ \t]*", "", text, flags=re.MULTILINE)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text or NOTHING_PRINTED


class WalkthroughPolicy(ExpertPolicy):
    """Plays the walkthrough stored in the game's metadata, one command per step."""

    name = "walkthrough"
    title = "Walkthrough"


def _normalised(command: str) -> str:
    return " ".join(command.lower().split())


class TextWorldTask(BalrogTask):
    """One TextWorld family of BALROG (App. C); subclasses name the family."""

    default_action = "help"
    blocking = True  # every step talks to an interpreter
    baseline_episodes = GAMES_PER_FAMILY  # one episode per game
    # BALROG's released config (eval.num_episodes.textworld: 10), which its leaderboard
    # submissions play (the paper's App. C reports 20 seeds per game family).
    paper_episodes = 10
    settings: ClassVar[dict[str, tuple]] = {**BalrogTask.settings, OBJECTIVE_SETTING: OBJECTIVE_CHOICES}
    baselines = {"random": RandomLegalPolicy, "walkthrough": WalkthroughPolicy}
    # BALROG's task name, which is also the family's folder among the games.
    balrog_name: ClassVar[str]
    rules: ClassVar[str]
    hints: ClassVar[str]

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self.objective = OBJECTIVE_CHOICES[0]
        self._env = None  # the running TextWorld environment
        self._env_game: Game | None = None
        self._game: Game | None = None
        self._state = None  # TextWorld's GameState after the last command
        self._walkthrough_done = 0  # walkthrough commands played so far, in order
        self._played: list[str] = []  # the commands sent to the game since the reset
        self._admissible: AdmissibleCommands | None = None

    def configure(self, **options) -> None:
        super().configure(**options)
        if OBJECTIVE_SETTING in options:
            self.objective = options[OBJECTIVE_SETTING]

    # -- prompt ----------------------------------------------------------------------------
    def rules_text(self) -> str:
        return self.rules

    def instruction_prompt(self) -> str:
        """BALROG's four parts: the game and its goal, the commands in one paragraph, the
        hints in one paragraph, the announced step budget (`envs.balrog.textworld_prompts`)."""
        return "\n".join(
            (
                self.rules_text(),
                prompts.commands_paragraph(self.action_descriptions_now()),
                self.hints,
                prompts.budget_line(self.balrog_name),
            )
        )

    # -- actions ---------------------------------------------------------------------------
    def is_valid(self, candidate: str) -> bool:
        """Any text, as BALROG's TextWorld action space contains every output, which its
        game then reads (several lines and chained commands included) — except an output
        that would make the interpreter write or read files (`touches_files`)."""
        return not touches_files(candidate)

    def legal_actions(self) -> list[str]:
        """The game's admissible commands now (what the random baseline draws from), from
        a second interpreter started on first use (`envs.balrog.textworld_admissible`)."""
        if self._state is None:
            return []
        with TEXTWORLD_LOCK:
            if self._admissible is None:
                self._admissible = AdmissibleCommands(str(self._game.path), INTERPRETER_SEED, self._played)
            return self._admissible.now()

    def expert_action(self) -> str:
        walkthrough = self._require_game().walkthrough
        if self._walkthrough_done < len(walkthrough):
            return walkthrough[self._walkthrough_done]
        return self.default_action

    def initial_state_key(self) -> str:
        return self._require_game().identity()

    # -- the game --------------------------------------------------------------------------
    def _start(self, seed: int) -> Observation:
        game = game_for_seed(self.balrog_name, seed)
        with TEXTWORLD_LOCK:
            self._close_admissible()
            self._open(game)
            self._state = self._env.reset()
        self._game = game
        self._walkthrough_done = 0
        self._played = []
        return self._observation(self._state.feedback)

    def _open(self, game: Game) -> None:
        """Start the interpreter on `game`, keeping the running one if it plays it."""
        if self._env is not None and self._env_game == game:
            return
        self.close()
        # Imported here: loading the catalogue imports this module, and TextWorld takes
        # over a second to import.
        import textworld

        self._env = textworld.start(str(game.path), textworld.EnvInfos(**BALROG_REQUEST))
        self._env.seed(INTERPRETER_SEED)
        self._env_game = game

    def _play(self, action: str) -> Outcome:
        if _normalised(action) == _normalised(self.expert_action()):
            self._walkthrough_done += 1
        previous_score = self._state.score
        from textworld.core import GameNotRunningError

        with TEXTWORLD_LOCK:
            try:
                self._state, _, _ = self._env.step(action)
            except GameNotRunningError:
                # The previous command stopped the interpreter (quit confirmed, save or
                # restore in a glulx game): BALROG's step raises here and its harness
                # drops the episode; the arena ends it with the progress it had.
                return Outcome(
                    observation=Observation(text=GAME_STOPPED),
                    reward=0.0,
                    terminated=True,
                    end_reason="game stopped",
                    info={"score": previous_score, "max_score": self._state.max_score},
                )
            self._played.append(action)
            if self._admissible is not None:
                self._admissible.follow(action)
        state = self._state
        end_reason = "won" if state.won else "lost" if state.get("lost") else None
        return Outcome(
            observation=self._observation(state.feedback),
            reward=float(state.score - previous_score),
            terminated=end_reason is not None,
            end_reason=end_reason,
            info={"score": state.score, "max_score": state.max_score},
        )

    def _observation(self, feedback: str) -> Observation:
        shown = self.objective == "shown"
        return Observation(text=clean_feedback(feedback, self._game.objective, show_objective=shown))

    def progress_percent(self) -> float:
        """BALROG's TextWorld progression: max(score / max score, 1 if won) × 100."""
        state = self._state
        if state is None or not state.max_score:
            return 0.0
        return 100.0 * max(state.score / state.max_score, 1.0 if state.won else 0.0)

    def _require_game(self) -> Game:
        if self._game is None:
            raise RuntimeError(f"{self.id}: call reset(seed) first")
        return self._game

    def _close_admissible(self) -> None:
        if self._admissible is not None:
            self._admissible.close()
        self._admissible = None

    def close(self) -> None:
        with TEXTWORLD_LOCK:
            self._close_admissible()
            if self._env is not None:
                self._env.close()
        self._env = None
        self._env_game = None


def _description(family_text: str, extra: str = "") -> str:
    return (
        f"{family_text} BALROG App. C: one of the 25 games BALROG evaluates, at most 80 steps; progress is the "
        "game's score over its maximum score, 100 once won. Seed s plays game (s + 1) mod 25 (files sorted by "
        "name): the game BALROG's harness gives to a task's (s + 1)-th episode in one worker, so the preset's "
        "10 episodes play games 1-10 as BALROG run with one worker does (with its 16 workers most leaderboard "
        "episodes played games 1-3). The objective is hidden, as BALROG cuts it out of every observation (even "
        "of the 'goal' command's answer); the setting objective = shown keeps it in the first observation. "
        "BALROG's prompts announce 40 steps (treasure hunter) and 25 (coin collector) while its episodes run 80; "
        "the prompt here says what BALROG's says. Every output reaches the game as it is, as in BALROG: several "
        "lines, chained commands and out-of-game verbs included; an output that stops the interpreter (quit "
        "confirmed) ends the episode at the next step (BALROG drops such an episode), and one that would make "
        "it read or write files (save, restore, script, transcript) plays 'help'. "
        "Observations are the game's own text without its title banner (BALROG gives TextWorld no short-term "
        "context). Baselines: random draws among the game's admissible commands; Walkthrough replays the "
        f"walkthrough stored with the game.{extra}"
    )


class TreasureHunter(TextWorldTask):
    balrog_name = "treasure_hunter"
    score_range = (0.0, 1.0)
    action_descriptions = prompts.TREASURE_HUNTER_COMMANDS
    rules = prompts.TREASURE_HUNTER_RULES
    hints = prompts.TREASURE_HUNTER_HINTS
    description = _description(
        "Find one object in a maze of 20 rooms with locked doors and containers (level 30).",
    )


class CookingGame(TextWorldTask):
    balrog_name = "the_cooking_game"
    score_range = (0.0, 17.0)
    action_descriptions = prompts.COOKING_COMMANDS
    rules = prompts.COOKING_RULES
    hints = prompts.COOKING_HINTS
    description = _description(
        "Read the recipe, then fetch, cut and cook up to 5 ingredients across 13 rooms and eat the meal.",
        " The walkthroughs of four games are longer than 80 steps, so even they cannot win those games: "
        "cooking_item5_seed_11996 (88 steps, seeds ≡ 0 mod 25), _17067 (90, ≡ 7), _20939 (83, ≡ 11) and "
        "_5972 (88, ≡ 21); _3653 (≡ 18) needs exactly 80.",
    )


class CoinCollector(TextWorldTask):
    balrog_name = "coin_collector"
    score_range = (0.0, 1.0)
    action_descriptions = prompts.COIN_COLLECTOR_COMMANDS
    rules = prompts.COIN_COLLECTOR_RULES
    hints = prompts.COIN_COLLECTOR_HINTS
    description = _description(
        "Find the coin in a maze of 40 rooms with distractor rooms, 20 steps from the start (level 220).",
    )

