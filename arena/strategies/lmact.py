"""LMAct's strategy: one episode's prompt, its frozen prefix assembled once, the
trajectory grown step by step and fitted to the model's context window (LMAct §2.3–2.4).
The protocol's texts and parts are in arena.strategies.lmact_prompt.
"""

from __future__ import annotations

from arena.strategies import tokens
from arena.strategies.base import ContentConverter, ImageStore, as_message_content
from arena.strategies.context import ContextBudget, Prompt, answer_reserve, oldest_to_drop
from arena.strategies.lmact_prompt import (
    ANSWER_COT_LEGAL, DEMONSTRATIONS_HEADER, DENSE_TOKENIZER_MARGIN, OMITTED_STEPS, PREAMBLE, SEPARATOR, LMActPrompter,
    build_prefix, merge_text, omitted_steps_part, parse_action, parse_reasoning,
)
from arena.variant import Variant


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
        # The frozen prefix's characters, and its text when it holds no picture: both
        # fixed for the episode, so figured once in `begin`.
        self._frozen_chars = 0
        self._prefix_text: str | None = None
        # Whether every step so far is text only: then the prompt is one string, and
        # the trajectory is kept as its text (see `_trajectory_text`).
        self._text_only_steps = True
        # (steps dropped, steps joined, their text): see `_trajectory_text`.
        self._joined_trajectory: tuple[int, int, str] | None = None
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
        self._frozen_chars = sum(len(part.get("text", "")) for part in self._prefix_content)
        if all(part["type"] == "text" for part in self._prefix_content):
            self._prefix_text = "".join(part["text"] for part in self._prefix_content)
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
        content = self._converter.convert(trajectory)
        self._steps.append((content, size))
        if self._text_only_steps and any(part["type"] != "text" for part in content):
            self._text_only_steps = False
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
        if self._prefix_text is not None and self._text_only_steps and all(p["type"] == "text" for p in tail):
            # All text: the string `as_message_content` would join from the merged
            # parts, joined once from the prefix's text, the trajectory's and the tail's.
            content = "".join((self._prefix_text, self._trajectory_text(dropped), *(p["text"] for p in tail)))
        else:
            content = as_message_content(self._prefix_content + merge_text(self._trajectory(dropped) + tail))
        messages = [{"role": "user", "content": content}]
        # The frozen prefix (preamble and demonstrations) in characters, where a provider
        # caches only what is marked (Anthropic's cache_control).
        return Prompt(messages, estimate, dropped, frozen_chars=self._frozen_chars)

    def _trajectory_text(self, dropped: int) -> str:
        """`_trajectory(dropped)`'s text when every step is text only: the text of the
        previous call extended by the steps added since, while the same steps are dropped."""
        cached = self._joined_trajectory
        if cached is not None and cached[0] == dropped and cached[1] <= len(self._steps):
            text, start = cached[2], cached[1]
        else:
            text, start = (SEPARATOR + OMITTED_STEPS.format(count=dropped) if dropped else ""), dropped
        text += "".join(part["text"] for content, _ in self._steps[start:] for part in content)
        self._joined_trajectory = (dropped, len(self._steps), text)
        return text

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
