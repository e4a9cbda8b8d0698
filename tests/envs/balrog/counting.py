"""A tiny BALROG environment for tests of the shared protocol: walk to 3."""

from envs.balrog.protocol import BalrogTask, Outcome
from envs.core import Observation
from envs.spec import TaskSpec


class CountingGame(BalrogTask):
    action_descriptions = {"up": "add one", "stay": "do nothing"}
    default_action = "stay"

    def rules_text(self) -> str:
        return "Reach 3."

    def _start(self, seed: int) -> Observation:
        self.position = 0
        return self._observe()

    def _observe(self) -> Observation:
        return Observation(text=f"You are at {self.position}.", context=f"Steps taken: {self.steps_taken}")

    def _play(self, action: str) -> Outcome:
        if action == "up":
            self.position += 1
        won = self.position >= 3
        return Outcome(self._observe(), reward=1.0 if won else 0.0, terminated=won, end_reason="won" if won else None)

    def progress_percent(self) -> float:
        return 100.0 * min(self.position, 3) / 3

    def initial_state_key(self) -> str:
        return "0"

    def expert_action(self) -> str:
        return "up"


CountingTask = CountingGame.for_spec(
    TaskSpec(id="balrog/counting", entry_point=CountingGame, title="Counting", max_steps=10, formats=("text",))
)
