"""The LMAct prompt protocol (LMAct §2.3–2.4, App. B.3, Listings 1 and 2).

The prompt has two parts:

1. a *frozen prefix*, assembled once per episode and byte-identical at every step: a
   generic decision-making preamble (no task rules, §2.3) followed by the expert
   demonstration episodes, each step rendered as "Observation: … Action: …";
2. the *current situation*: a separator, the evaluation trajectory so far with the
   actions that were executed (§2.4 shows past actions), then optionally the list of
   legal actions and optionally a chain-of-thought request, and the required answer
   format.

The wording below is the arena's own; the structure, the information given and the
answer format are the reference's: "Reasoning: …" then "Action: …" under chain of
thought, otherwise the action alone (the keyword form "Action: …" is accepted too, and is
required when the legal actions cannot be listed, as for the cheetah's continuous
actions). With no demonstrations the closing instruction does not mention any. Parsing is
deliberately strict (§2.4): the text after the last "Action:", or a completion that is
exactly one of the step's legal actions, with surrounding whitespace removed; anything
else is an illegal action, and the task applies the paper's rule for it (a random legal
action in most tasks; the crossword ends the episode with −1).

Parts are plain dicts so they can be stored as JSON on the episode and steps:
{"type": "text", "text": str} or {"type": "image", "sha": str}; each trajectory part
carries "section": "trajectory", the per-step tail "section": "instructions". The exact
prompt of step k is prefix + every step's trajectory parts up to k + step k's tail
(see `rebuild_prompt`).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.strategies import tokens
from arena.strategies.base import ContentConverter, ImageStore, as_message_content
from arena.strategies.context import ContextBudget, Prompt, answer_reserve, oldest_to_drop
from arena.variant import Variant
from envs.core import Observation

PREAMBLE = (
    "You are an agent that learns to act from examples. Study the demonstrations below, "
    "work out the policy they follow, and apply that policy to a new situation.\n\n"
)
DEMONSTRATIONS_HEADER = "Demonstrations:\n\n"
# With no demonstration the preamble speaks of none (the reference has a zero-shot
# preamble of its own): the agent acts from the situation alone.
ZERO_SHOT_PREAMBLE = (
    "You are an agent acting in an environment. You are shown the situation you are in; "
    "decide the next action.\n\n"
)
SEPARATOR = "This is the situation you are in now:\n\n"
LEGAL_ACTIONS_HEADER = "\nThe legal actions in this situation are:\n"
ACTION_FORMAT_HEADER = "\nA legal action has this form:\n"
# The closing instruction (LMAct §2.3, Listing 2; the released code's wording for the
# cases the listing leaves out). It names the demonstrations only when there are some:
# the zero-shot prompt has none to point to.
CONTEXT_WITH_DEMONSTRATIONS = "Given the demonstrations and the situation above"
CONTEXT_ZERO_SHOT = "Given the situation above"
CHOOSE = "\n{context}, work out the next action"
CHOOSE_LEGAL = "\n{context}, work out the next action; make sure it is one of the legal actions"
# Without chain of thought the reference asks for the action alone: a completion that is
# exactly a legal action counts as that action, and "Action: ..." is accepted as well.
ALONE_LEGAL = ". Reply with that legal action alone, without any other text.\n"
ALONE = ". Reply with the action alone, without any other text, written exactly like the earlier actions.\n"
# When the legal actions cannot be listed (a continuous action space) a bare answer cannot
# be recognised, so the keyword form is required.
KEYWORD_ONLY = ". Reply with the action only, in exactly this format:\nAction: ...\n"
COT = (
    ". Reason step by step and explain your choice in a few words, then give the action. "
    "Reply in exactly this format:\n"
    "Reasoning: ...\n"
    "Action: ...\n"
)


def answer_instruction(*, demonstrations: bool, show_legal: bool, chain_of_thought: bool, listable: bool) -> str:
    """The closing instruction of a step's prompt (LMAct §2.3–2.4)."""
    context = CONTEXT_WITH_DEMONSTRATIONS if demonstrations else CONTEXT_ZERO_SHOT
    text = (CHOOSE_LEGAL if show_legal else CHOOSE).format(context=context)
    if chain_of_thought:
        return text + COT
    if not listable:
        return text + KEYWORD_ONLY
    return text + (ALONE_LEGAL if show_legal else ALONE)


# The longest closing instruction, for the context-window reserve.
ANSWER_COT_LEGAL = answer_instruction(demonstrations=True, show_legal=True, chain_of_thought=True, listable=True)

ACTION_KEYWORD = "Action:"
# Demonstrations fill at most this share of the window by the tokenizer-free estimate:
# real tokenizers count up to ~20 % more tokens on boards and rare words.
DENSE_TOKENIZER_MARGIN = 0.8
# Replaces the oldest steps of the evaluation trajectory when the whole of it would not
# fit the model's context window (the preamble and demonstrations always stay).
OMITTED_STEPS = "[The first {count} steps of this episode are left out here to fit the model's context window.]\n"

Part = dict


def parse_action(completion: str, legal: Sequence[str] = ()) -> str | None:
    """The text after the last "Action:", stripped; without the keyword, the whole
    completion if, stripped, it is exactly one of `legal` (the reference's no-CoT answer is
    the action alone, LMAct §2.4); None otherwise."""
    position = completion.rfind(ACTION_KEYWORD)
    if position < 0:
        bare = completion.strip()
        return bare if bare and bare in legal else None
    return completion[position + len(ACTION_KEYWORD):].strip()


def parse_reasoning(completion: str) -> str:
    """What the model wrote before its final "Action:" (its chain of thought); nothing
    when there is no "Action:" (a bare action, or an answer the replay shows as the
    completion already — repeating it as reasoning would store it twice)."""
    position = completion.rfind(ACTION_KEYWORD)
    if position < 0:
        return ""
    head = completion[:position].strip()
    if head.startswith("Reasoning:"):
        head = head[len("Reasoning:"):].strip()
    return head


def _observation_parts(observation: Observation, images: ImageStore) -> list[Part]:
    if _has_image(observation):
        return [{"type": "text", "text": "Observation: "}, {"type": "image", "sha": images.sha(observation)}]
    text = observation.text or ""
    # Multi-line observations (grids, boards) start on their own line so they stay aligned.
    if "\n" in text:
        return [{"type": "text", "text": f"Observation:\n{text}\n"}]
    return [{"type": "text", "text": f"Observation: {text}"}]


def _has_image(observation) -> bool:
    # Pool observations keep their frame as PNG bytes (envs.demos.PackedObservation).
    return observation.png is not None or observation.image is not None


def _action_text(action: str, observation: Observation) -> str:
    multiline = not _has_image(observation) and "\n" in (observation.text or "")
    return f"Action: {action}\n" if multiline else f" Action: {action}\n"


def merge_text(parts: Sequence[Part]) -> list[Part]:
    """Join neighbouring text parts (fewer, larger parts; same bytes). Each run of text
    parts is joined once, so the cost is linear in the prompt, not in its square."""
    merged: list[Part] = []
    run: list[str] = []  # the texts that make up merged[-1] while it is a text part
    for part in parts:
        if part["type"] == "text" and merged and merged[-1]["type"] == "text" and merged[-1].get("section") == part.get(
            "section"
        ):
            run.append(part["text"])
            continue
        if len(run) > 1:
            merged[-1]["text"] = "".join(run)
        merged.append(dict(part))
        run = [part["text"]] if part["type"] == "text" else []
    if len(run) > 1:
        merged[-1]["text"] = "".join(run)
    return merged


def build_prefix(demonstrations, images: ImageStore) -> list[Part]:
    """Listing 1: preamble, then each demonstration episode, one blank line between;
    without demonstrations, the zero-shot preamble alone."""
    if not demonstrations:
        return [{"type": "text", "text": ZERO_SHOT_PREAMBLE}]
    parts: list[Part] = [{"type": "text", "text": PREAMBLE}]
    parts.append({"type": "text", "text": DEMONSTRATIONS_HEADER})
    for demonstration in demonstrations:
        for observation, action in demonstration.steps:
            parts.extend(_observation_parts(observation, images))
            parts.append({"type": "text", "text": _action_text(action, observation)})
        parts.append({"type": "text", "text": "\n"})
    return merge_text(parts)


class LMActPrompter:
    """Builds the per-step prompt additions for one episode."""

    def __init__(
        self, *, show_legal_actions: bool, chain_of_thought: bool, images: ImageStore, demonstrations: bool = True
    ):
        self.show_legal_actions = show_legal_actions
        self.chain_of_thought = chain_of_thought
        self.demonstrations = demonstrations
        self.images = images
        self._previous_observation: Observation | None = None

    def trajectory_parts(self, index: int, observation: Observation, previous_action: str | None) -> list[Part]:
        """What step `index` appends to the trajectory: the action that led here, then
        the new observation (§2.4: "prepended with the action that produced it")."""
        parts: list[Part] = []
        if index == 0:
            parts.append({"type": "text", "text": SEPARATOR})
        elif previous_action is not None and self._previous_observation is not None:
            parts.append({"type": "text", "text": _action_text(previous_action, self._previous_observation)})
        parts.extend(_observation_parts(observation, self.images))
        self._previous_observation = observation
        return [{**part, "section": "trajectory"} for part in merge_text(parts)]

    def tail_parts(self, legal_actions: Sequence[str], action_format: str = "") -> list[Part]:
        text = "\n"
        if self.show_legal_actions:
            if legal_actions:
                text += LEGAL_ACTIONS_HEADER + ", ".join(legal_actions) + "\n"
            elif action_format:
                # A continuous action space cannot be listed: say what an action looks like.
                text += ACTION_FORMAT_HEADER + action_format + "\n"
        answer = answer_instruction(
            demonstrations=self.demonstrations,
            show_legal=self.show_legal_actions,
            chain_of_thought=self.chain_of_thought,
            listable=bool(legal_actions),
        )
        return [{"type": "text", "text": text + answer, "section": "instructions"}]


def omitted_steps_part(count: int) -> Part:
    return {"type": "text", "text": OMITTED_STEPS.format(count=count), "section": "trajectory"}


def rebuild_prompt(prefix: Sequence[Part], steps_added: Sequence[Sequence[Part]], dropped_steps: int = 0) -> list[Part]:
    """The exact prompt of the last step in `steps_added` (each a step's prompt_added);
    `dropped_steps` is what that step recorded as left out to fit the context window."""
    parts: list[Part] = [dict(p) for p in prefix]
    if dropped_steps:
        parts.append({"type": "text", "text": SEPARATOR, "section": "trajectory"})
        parts.append(omitted_steps_part(dropped_steps))
        kept = steps_added[dropped_steps:]
    else:
        kept = steps_added
    for added in kept:
        parts.extend(p for p in added if p.get("section") == "trajectory")
    parts.extend(p for p in steps_added[-1] if p.get("section") == "instructions")
    return merge_text([{k: v for k, v in p.items() if k != "section"} for p in parts])


class LMActStrategy:
    """One user message per step: frozen prefix + trajectory + instructions (§2.3).

    With `replay_control` (App. C.2) the single demonstration is the evaluation episode
    itself (same seed, so the same initial state), and the runner executes the
    demonstration's actions whatever the model says (teacher forcing): what is measured
    is how often the model's action matches.
    """

    # What `messages` drops first when the prompt outgrows the context window.
    dropped_unit = "steps"

    def __init__(self, run, episode):
        self.run = run
        self.episode = episode
        variant = Variant.of(run)
        self.replay_control = variant.replay_control
        self.num_demonstrations = variant.num_demonstrations
        self.show_legal_actions = variant.show_legal_actions
        self.chain_of_thought = variant.chain_of_thought
        self.prompter: LMActPrompter | None = None
        self.forced_actions: list[str] = []
        self.action_format = ""
        self._legal: tuple[str, ...] = ()
        self.demonstrations_capped: dict | None = None
        self._converter: ContentConverter | None = None  # made in `begin`, with the episode's images
        self._prefix_content: list[dict] = []
        self._prefix_tokens = 0
        # The instructions after the trajectory and a game's few actions recur: each text counted once.
        self._tail_tokens, self._action_tokens = tokens.TextTokenMemo(), tokens.TextTokenMemo()
        # Per step of the evaluation trajectory: its converted content and estimated tokens.
        self._steps: list[tuple[list[dict], int]] = []
        # (steps dropped, steps merged, their merged content): see `_trajectory`.
        self._merged_trajectory: tuple[int, int, list[dict]] | None = None
        self._provider = run.submission.provider

    def begin(self, task, observation, images: ImageStore) -> tuple[list, list[int]]:
        """Draw the demonstrations and assemble the frozen prefix, once per episode."""
        from envs.demos import draw_demonstrations, play_expert_episode

        demonstrations = []
        if self.replay_control:
            demonstration = play_expert_episode(self.run.task, self.run.format, self.episode.seed)
            demonstrations = [demonstration]
            self.forced_actions = [action for _, action in demonstration.steps]
        elif self.num_demonstrations:
            draw = draw_demonstrations(
                self.run.task, self.run.format, self.num_demonstrations, self.episode.seed, task.initial_state_key()
            )
            self.demonstrations_capped = draw.capped
            demonstrations = self._fit_context(draw.demonstrations)
        self.prompter = LMActPrompter(
            show_legal_actions=self.show_legal_actions,
            chain_of_thought=self.chain_of_thought,
            images=images,
            demonstrations=bool(demonstrations),
        )
        self.action_format = task.action_format
        self._converter = ContentConverter(images)
        prefix = build_prefix(demonstrations, images)
        # Converted and merged once: every step sends these very part objects, so the
        # per-step cost does not grow with the number of demonstrations (§2.3's frozen
        # part; byte-identical at every step, which is what prompt caching needs).
        self._prefix_content = merge_text(self._converter.convert(prefix))
        self._prefix_tokens = tokens.text_tokens(PREAMBLE + DEMONSTRATIONS_HEADER + SEPARATOR) + sum(
            tokens.demonstration_tokens(d, self._provider) for d in demonstrations
        )
        return prefix, [d.seed for d in demonstrations]

    def _fit_context(self, demonstrations: list) -> list:
        """Keep as many demonstrations as the context window holds (the server's, else
        the stated one: Submission.effective_context_window), leaving room for an
        evaluation trajectory as long as the longest demonstration and for the answer;
        record when that meant fewer than requested. The estimate is tokenizer-free, so
        a share of the window is kept free for tokenizers denser than it assumes."""
        submission = self.run.submission
        window = submission.effective_context_window
        if not window or not demonstrations:
            return demonstrations
        sizes = [tokens.demonstration_tokens(d, self._provider) for d in demonstrations]
        answer = answer_reserve(window, submission.max_tokens)
        reserve = tokens.text_tokens(PREAMBLE + SEPARATOR + ANSWER_COT_LEGAL) + max(sizes) + answer
        usable = int(window * DENSE_TOKENIZER_MARGIN)
        kept, used = [], 0
        for demonstration, size in zip(demonstrations, sizes):
            if used + size + reserve > usable:
                break
            kept.append(demonstration)
            used += size
        if len(kept) < len(demonstrations):
            self.demonstrations_capped = {
                "requested": self.num_demonstrations,
                "used": len(kept),
                "estimated_tokens": used + reserve,
                "context_window": window,
            }
        return kept

    def forced_action(self, index: int) -> str | None:
        if not self.replay_control:
            return None
        return self.forced_actions[index] if index < len(self.forced_actions) else None

    def prepare(self, index, observation, previous_action, legal) -> list:
        trajectory = self.prompter.trajectory_parts(index, observation, previous_action)
        size = tokens.observation_tokens(observation, self._provider) + self._action_tokens(previous_action or "") + 6
        self._steps.append((self._converter.convert(trajectory), size))
        self._legal = tuple(legal)  # what `parse` accepts as a bare answer
        return trajectory + self.prompter.tail_parts(legal, self.action_format)

    def messages(self, prompt_added: list, budget: ContextBudget | None = None) -> Prompt:
        """The prompt of the current step. When the whole trajectory would not fit the
        budget, its oldest steps give way to a one-line note (the current observation,
        the preamble and the demonstrations always stay); ContextExhausted if even that
        is too long."""
        tail_parts = [p for p in prompt_added if p.get("section") == "instructions"]
        tail = self._converter.convert(tail_parts)
        tail_tokens = sum(self._tail_tokens(p["text"]) for p in tail_parts)
        sizes = [size for _, size in self._steps]
        dropped = oldest_to_drop(self._prefix_tokens + tail_tokens + 20, sizes, budget)
        estimate = self._prefix_tokens + tail_tokens + sum(sizes[dropped:])
        # A plain string unless an image goes with it: servers such as llama-cpp-python's
        # (and chat templates that add strings to the content) refuse content parts.
        content = as_message_content(self._prefix_content + merge_text(self._trajectory(dropped) + tail))
        messages = [{"role": "user", "content": content}]
        # The frozen prefix (preamble and demonstrations) in characters, where a provider
        # caches only what is marked (Anthropic's cache_control).
        frozen = sum(len(part.get("text", "")) for part in self._prefix_content)
        return Prompt(messages, estimate, dropped, frozen_chars=frozen)

    def _trajectory(self, dropped: int) -> list[dict]:
        """The trajectory's content from step `dropped` on (after a note saying how many
        were left out), neighbouring text merged. The merge of the previous call is
        extended by the steps added since, while the same steps are dropped: the same
        parts as merging them all again (merge_text only joins neighbours), without
        re-joining the whole trajectory at every step."""
        cached = self._merged_trajectory
        if cached is not None and cached[0] == dropped and cached[1] <= len(self._steps):
            merged, start = cached[2], cached[1]
        else:
            merged, start = [], dropped
            if dropped:
                merged.append({"type": "text", "text": SEPARATOR})
                merged.extend(self._converter.convert([omitted_steps_part(dropped)]))
        merged = list(merged)  # the cached list stays as it is (merge_text copies the parts it joins)
        for content, _ in self._steps[start:]:
            merged.extend(content)
        merged = merge_text(merged)
        self._merged_trajectory = (dropped, len(self._steps), merged)
        return merged

    def parse(self, completion: str) -> tuple[str | None, str]:
        return parse_action(completion, self._legal), parse_reasoning(completion)

    def record(self, completion: str, action: str) -> None:
        return None

    def conversation(self) -> None:
        """LMAct plays no Reflexion: there is no conversation to reflect on."""
        return None
