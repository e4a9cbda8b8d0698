"""The infogather tasks: find the hidden reward rule by picking objects
(Ke et al. §3.1, §4, App. A–B).

Protocol, per turn the agent answers with four fields (see `answers.py`): an object to
pick, a stop flag, and its current belief (factor and combination).

- A legal pick names one object of the room not picked before; it gives reward 0 or 1
  by the hidden rule and is recorded.
- An answer whose action names no object of the room, several, or one already picked is
  illegal: the turn is used, nothing is picked, `legal` is False (the paper forbids
  re-picking but states no penalty; wasting the turn is ours).
- "stop: yes" ends the episode (terminated, end reason "stopped"); an action in the same
  answer is ignored.
- The turn budget is the number of objects plus one: enough to pick every object once
  and still give a final answer. Running out truncates the episode ("step budget used").
  The paper states no budget for the text environment (its 3D review keeps the first 4
  placements); `exploitation_curve` gives the score at any shorter budget.

The number of colours is the paper's difficulty knob (§4.1, 3–10 colours): call
`configure(num_colours=...)` before `reset`. The default is 3, the one setting the paper
reports for both text and 3D (§4.4.1: 3 colours, 3 shapes, one causal factor). Shapes
(and textures) stay at 3.

The rule is drawn uniformly from the task's hypothesis space, so each consistent
hypothesis is equally likely at every point, which is the prior the optimal baseline's
information gain assumes.
"""

from __future__ import annotations

import dataclasses
import random
from typing import ClassVar

from envs.core import Observation, StepResult, Task
from envs.infogather import answers, prompts
from envs.infogather.baselines import BASELINES, optimal_answer
from envs.infogather.hypotheses import CONJUNCTION, SINGLE, Hypothesis, HypothesisTracker
from envs.infogather.scene import COLOUR, COLOURS, SHAPE, SHAPES, TEXTURE, TEXTURES, Scene, make_scene

DEFAULT_COLOURS = 3
DEFAULT_SHAPES = 3
DEFAULT_TEXTURES = 3

PICK, WASTED, STOP = "pick", "wasted", "stop"
END_STOPPED = "stopped"
END_BUDGET = "step budget used"


@dataclasses.dataclass(frozen=True)
class TurnRecord:
    kind: str  # PICK, WASTED or STOP
    object_name: str | None
    reward: int | None
    reason: str  # why a wasted turn was wasted
    factors: tuple[str, ...]  # the belief stated in this answer
    values: tuple[str, ...]
    score: int  # 1 if that belief is exactly the rule


def default_budget(num_objects: int) -> int:
    return num_objects + 1


class InfoGatherTask(Task):
    """Shared protocol of the two infogather tasks; subclasses set `kind`."""

    # The number of colours the paper sweeps (§4.4, Figs. 3–4); guided reasoning
    # changes only the prompt, so baselines play it once (not per value).
    variant_options = {"num_colours": tuple(range(3, 11)), "guided_reasoning": (False, True)}
    prompt_options = ("guided_reasoning",)
    baselines = BASELINES  # the suite's own (§4)
    # The paper's words for the end of the exploration budget (infogather §4, "fixed
    # budget of exploration steps").
    step_limit_reason = END_BUDGET
    kind: ClassVar[str]
    extra_properties: ClassVar[dict[str, int]] = {}

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._scene: Scene | None = None
        self.configure()

    # -- configuration -------------------------------------------------------------
    def configure(
        self,
        num_colours: int = DEFAULT_COLOURS,
        *,
        num_shapes: int = DEFAULT_SHAPES,
        num_textures: int = DEFAULT_TEXTURES,
        step_budget: int | None = None,
        guided_reasoning: bool = False,
    ) -> InfoGatherTask:
        """Set the scene size (and optionally the turn budget) for the next `reset`."""
        counts = {COLOUR: int(num_colours), SHAPE: int(num_shapes)}
        if self.kind == CONJUNCTION:
            counts[TEXTURE] = int(num_textures)
        limits = {COLOUR: len(COLOURS), SHAPE: len(SHAPES), TEXTURE: len(TEXTURES)}
        for prop, count in counts.items():
            if not 2 <= count <= limits[prop]:
                raise ValueError(f"the number of {prop}s must be between 2 and {limits[prop]}, not {count}")
        num_objects = 1
        for count in counts.values():
            num_objects *= count
        if step_budget is not None and step_budget < 1:
            raise ValueError("the step budget must be at least 1")
        self.counts = counts
        self.num_objects = num_objects
        self.instructions = self.guided_instructions if guided_reasoning else type(self).instructions
        self.max_steps = step_budget if step_budget is not None else default_budget(num_objects)
        # Summed reward counts the rewarding objects picked; its best is every one of them.
        self.score_range = (0.0, float(self._most_rewarding(counts)))
        self._scene = None
        return self

    @property
    def num_colours(self) -> int:
        return self.counts[COLOUR]

    @classmethod
    def _most_rewarding(cls, counts: dict[str, int]) -> int:
        total = 1
        for count in counts.values():
            total *= count
        if cls.kind == SINGLE:
            return total // min(counts[COLOUR], counts[SHAPE])
        return max(total // (counts[a] * counts[b]) for a, b in ((COLOUR, SHAPE), (SHAPE, TEXTURE), (COLOUR, TEXTURE)))

    # -- protocol ------------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.seed = seed
        rng = random.Random(f"{self.id}/scene:{sorted(self.counts.items())}:{seed}")
        self._scene = make_scene(self.counts, rng)
        self._room = prompts.room_text(self._scene)
        self._tracker = HypothesisTracker(self._scene, self.kind)
        self._rule: Hypothesis = rng.choice(self._tracker.hypotheses)
        self._picked: dict[str, int] = {}
        self._history: list[TurnRecord] = []
        self._turn_lines: list[str] = []
        self._sufficient_at: int | None = None
        self._stopped = False
        return self._observe()

    def _step(self, action_text: str) -> StepResult:
        answer = answers.parse_answer(action_text)
        score = answers.belief_score(answer.factors, answer.values, self._rule.factors, self._rule.values)
        reward = 0
        info: dict = {}
        if answer.stop:
            record = TurnRecord(STOP, None, None, "", answer.factors, answer.values, score)
            executed = answers.canonical(None, True, answer.factors, answer.values)
            legal = True
            self._stopped = True
        else:
            action = answers.clean_action(answer.action)
            obj, reason = answers.resolve_object(action, self._scene)
            if obj is not None and obj.name in self._picked:
                obj, reason = None, f"the {obj.name} was already picked"
            if obj is None:
                legal = False
                record = TurnRecord(WASTED, None, None, reason, answer.factors, answer.values, score)
                executed = answers.canonical(action, False, answer.factors, answer.values)
                info["illegal_reason"] = reason
            else:
                legal = True
                reward = self._rule.predicts(obj)
                self._picked[obj.name] = reward
                self._tracker.observe(obj, reward)
                if self._sufficient_at is None and self._tracker.count == 1:
                    self._sufficient_at = self.steps_taken
                record = TurnRecord(PICK, obj.name, reward, "", answer.factors, answer.values, score)
                executed = answers.canonical(f"pick up {obj.name}", False, answer.factors, answer.values)
        self._history.append(record)
        self._turn_lines.append(prompts.turn_line(len(self._history), record))
        # For the replay page: what this turn did and the rules still consistent after it.
        info.update(
            picked=record.object_name,
            reward=record.reward,
            belief_score=score,
            consistent=[h.describe() for h in self._tracker.remaining()],
        )
        return StepResult(
            observation=self._observe(),
            reward=float(reward),
            terminated=self._stopped,
            truncated=False,
            legal=legal,
            executed_action=executed,
            end_reason=END_STOPPED if self._stopped else None,
            info=info,
        )

    def legal_actions(self) -> list[str]:
        """The objects not picked yet, in the scene's listing order; just "stop" once
        every object has been picked."""
        self._require_episode()
        names = [obj.name for obj in self._scene.objects if obj.name not in self._picked]
        return names or ["stop"]

    def initial_state_key(self) -> str:
        self._require_episode()
        objects = ", ".join(obj.name for obj in self._scene.objects)
        return f"objects=[{objects}] rule={self._rule.describe()}"

    def expert_action(self) -> str:
        self._require_episode()
        return optimal_answer(self, self.seed)

    @classmethod
    def extract_action(cls, completion: str) -> str | None:
        """The answer's four fields as one canonical line (reasoning dropped); a reply
        with no field at all is passed on as it is (a bare object name or "stop")."""
        answer = answers.parse_answer(completion)
        if not answer.found_fields:
            return completion.strip()
        return answers.canonical_answer(answer)

    def episode_metrics(self) -> dict:
        self._require_episode()
        last = self._history[-1] if self._history else None
        final_factors = last.factors if last else ()
        final_values = last.values if last else ()
        return {
            "num_colours": self.counts[COLOUR],
            "num_shapes": self.counts[SHAPE],
            "num_textures": self.counts.get(TEXTURE),
            "num_objects": self.num_objects,
            "step_budget": self.max_steps,
            "rule": self._rule.as_dict(),
            "rule_text": self._rule.describe(),
            "steps_to_sufficient_information": self._sufficient_at,
            "sufficient_information_reached": self._sufficient_at is not None,
            "identified": bool(last.score) if last else False,
            "identified_any_mention": bool(answers.mentions_all(final_values, self._rule.values)),
            "final_belief": {"factors": list(final_factors), "values": list(final_values)},
            "exploitation_curve": [turn.score for turn in self._history],
            "steps_used": self.steps_taken,
            "objects_picked": len(self._picked),
            "wasted_steps": sum(1 for turn in self._history if turn.kind == WASTED),
            "rewards_found": sum(self._picked.values()),
            "stopped": self._stopped,
            "hypotheses_left": self._tracker.count,
        }

    # -- read-only state for the baselines and the tests -----------------------------------
    @property
    def scene(self) -> Scene:
        self._require_episode()
        return self._scene

    @property
    def tracker(self) -> HypothesisTracker:
        self._require_episode()
        return self._tracker

    @property
    def picked(self) -> dict[str, int]:
        """Object name -> reward, in picking order."""
        self._require_episode()
        return dict(self._picked)

    @property
    def rule(self) -> Hypothesis:
        self._require_episode()
        return self._rule

    @property
    def history(self) -> list[TurnRecord]:
        return list(self._history)

    def _require_episode(self) -> None:
        if self._scene is None:
            raise RuntimeError("call reset(seed) first")

    def _observe(self) -> Observation:
        # Built inside `_step`, before `step` applies the limit: a turn that uses the last
        # of the budget already shows the game as over (the agent is not asked again).
        ended = END_STOPPED if self._stopped else (END_BUDGET if self.steps_left == 0 else None)
        return Observation(text=prompts.observation_text(self._room, self._turn_lines, self.steps_left, ended))


_DESCRIPTION_COMMON = (
    " Each turn the agent names one object to pick up (each object at most once), sees its "
    "0/1 reward, and states which factor and value(s) it believes are rewarding; it may stop "
    "at any time. An answer naming no object of the room, several, or one already picked "
    "wastes the turn (illegal). The turn budget is the number of objects plus one. The number "
    "of colours (3 by default, 2–12 supported; the paper sweeps 3–10) is set with "
    "configure(num_colours=…); shapes and textures stay at 3. Metrics: steps to sufficient "
    "information (the first step after which a single rule is consistent with the picks), "
    "whether the final stated belief names exactly the rule (stricter than the paper's "
    "every-target-word check, reported beside it), and the belief's score after every step. "
    "Baselines: optimal (greedy expected information gain), random without replacement, "
    "random with replacement (a repeated object wastes its turn)."
)


class SingleFeature(InfoGatherTask):
    kind = SINGLE
    score_range = (0.0, 3.0)
    instructions = prompts.SINGLE_INSTRUCTIONS
    guided_instructions = prompts.SINGLE_GUIDED_INSTRUCTIONS
    description = (
        "Find the one rewarding colour or shape among objects that cover every combination of "
        "the colours and shapes present (protocol: Ke et al. §3.1, §4, App. A–B)."
        + _DESCRIPTION_COMMON
    )


class Conjunction(InfoGatherTask):
    kind = CONJUNCTION
    score_range = (0.0, 3.0)
    instructions = prompts.CONJUNCTION_INSTRUCTIONS
    guided_instructions = prompts.CONJUNCTION_GUIDED_INSTRUCTIONS
    description = (
        "Find the rewarding pair of values (colour+shape, shape+texture or colour+texture) among "
        "objects that cover every combination of the colours, textures and shapes present "
        "(protocol: Ke et al. §3.1, §4, App. A–B)."
        + _DESCRIPTION_COMMON
    )
