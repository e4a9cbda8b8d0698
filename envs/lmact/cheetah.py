"""LMAct cheetah run (LMAct §2.2, App. B.2, Fig. A5): DM Control's cheetah-run task.

The simulator is the real DeepMind Control Suite (`dm_control.suite.load("cheetah",
"run", task_kwargs={"random": seed})`) on MuJoCo; it is imported when an episode first
starts, so importing this module costs nothing.

Observation (format "dict", the only one): one line in the style of a Python dict,
`{'position': [8 numbers], 'velocity': [9 numbers]}`, each number written with
OBSERVATION_DECIMALS (4) decimals. These are dm_control's own observations: the joint
positions without the horizontal position of the torso, and all joint velocities.

Action: six numbers in [-1, 1], one per actuator (back thigh, shin, foot, then front
thigh, shin, foot), separated by commas; the surrounding square brackets are optional
and spaces are ignored, so "[0.1, -0.5, 1, 0, 0.3, -1.0]" and "0.1,-0.5,1,0,0.3,-1" are
the same action. Anything else (another count, a value outside [-1, 1], nan, text)
is illegal and replaced by a uniformly random action with four decimals.
`executed_action` writes the executed numbers back in the bracketed form, each as
Python's shortest exact repr, so feeding it to `step` again reproduces the action bit
for bit.
"""

from __future__ import annotations

import random
import re

import numpy as np

from envs.core import Observation, StepResult, Task, step_random
from envs.lmact.cheetah_frames import CheetahCamera, choose_gl_backend
from envs.lmact.planning import SamplingPlanner, stable_seed

OBSERVATION_DECIMALS = 4
ACTION_SIZE = 6
RANDOM_ACTION_DECIMALS = 4  # random substitutes and expert actions are rounded to this
STATE_KEY_DECIMALS = 6

# The expert: MPPI on the true simulator (see envs.lmact.planning.SamplingPlanner).
# Chosen on a 2-core machine for a 100-step episode in about two seconds.
EXPERT_HORIZON = 40  # steps of 0.01 s simulated per candidate
EXPERT_SAMPLES = 48  # candidates per step
EXPERT_KNOTS = 5  # control points of the smooth noise over the horizon
EXPERT_NOISE = 0.8  # standard deviation of the noise at the control points
EXPERT_TEMPERATURE = 0.2  # in standard deviations of the candidates' returns

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_action(text: str) -> tuple[float, ...] | None:
    """The six actuator values of an action text, or None if it is not a legal action."""
    body = text.strip()
    if body.startswith("["):
        if not body.endswith("]"):
            return None
        body = body[1:-1]
    elif body.endswith("]"):
        return None
    parts = [part.strip() for part in body.split(",")]
    if len(parts) != ACTION_SIZE:
        return None
    values = []
    for part in parts:
        if not _NUMBER.fullmatch(part):
            return None
        value = float(part)
        if not -1.0 <= value <= 1.0:
            return None
        values.append(value + 0.0)  # turns -0.0 into 0.0
    return tuple(values)


def format_action(values) -> str:
    """The canonical text of an action, which `parse_action` reads back exactly."""
    return "[" + ", ".join(repr(float(value) + 0.0) for value in values) + "]"


def _number(value: float) -> str:
    text = f"{value:.{OBSERVATION_DECIMALS}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def observation_text(position, velocity) -> str:
    position_text = ", ".join(_number(value) for value in position)
    velocity_text = ", ".join(_number(value) for value in velocity)
    return f"{{'position': [{position_text}], 'velocity': [{velocity_text}]}}"


def _load_suite():
    """dm_control's suite, imported on first use. The agent reads text; OpenGL only draws
    the replay's pictures, through a display-less backend chosen before the import
    (envs.lmact.cheetah_frames), so dm_control never probes for a display."""
    choose_gl_backend()
    from absl import logging as absl_logging

    # dm_control's cheetah model uses an attribute newer MuJoCo warns about on every load.
    absl_logging.set_verbosity(absl_logging.ERROR)
    from dm_control import suite

    return suite


class CheetahRun(Task):
    blocking = True  # physics / emulator steps and a planning expert
    viewer_frames = True  # MuJoCo's picture of the body, for the replay only
    baseline_episodes = 10
    demonstration_pool_size = 100
    score_range = (0.0, 100.0)
    # There are infinitely many legal actions, so legal_actions() is empty; a prompt
    # that shows legal actions should show this instead (the paper's wording, App. C.4).
    action_format = "A comma-separated list (enclosed by square brackets) of 6 values between -1 and 1."
    description = (
        "Make the planar cheetah of the DeepMind Control Suite run forward: the real "
        "dm_control cheetah-run task on MuJoCo (protocol: LMAct §2.2, App. B.2, Fig. A5). "
        "Each episode starts from dm_control's random initial pose for the episode seed, "
        "and only the first 100 steps (1 s of simulated time) are played. Every step "
        "earns dm_control's run reward, the forward speed divided by 10 m/s capped at 1, so "
        "the score, the summed reward, lies between 0 and 100. Observation: one line "
        "{'position': [8 numbers], 'velocity': [9 numbers]} with 4 decimals (joint "
        "positions without the torso's horizontal position, then all joint velocities). "
        "Action: 6 numbers between -1 and 1 separated by commas, square brackets optional, "
        "e.g. [0.1, -0.5, 1.0, 0.0, 0.3, -1.0] (back thigh, shin, foot, front thigh, shin, "
        "foot). Since the actions are continuous there is no list of legal actions; a wrong "
        "count, a value outside [-1, 1] or anything unreadable is replaced by a uniformly "
        "random action and counted as illegal (LMAct §2.4). Demonstrations come from a "
        "planning expert, not Gato data: the paper replayed a D4PG agent's episodes from "
        "the Gato training set (expert mean 37.4 over 100 steps), which cannot be had here. "
        "The expert here plans on the true simulator at every step with model-predictive "
        "path integral control: 48 smooth random variations of its current plan, each "
        "simulated 0.4 s ahead, averaged with weights favouring the fastest; it is "
        "deterministic for a seed and scores about 29 over 100 steps, against under 1 for "
        "uniformly random actions."
    )

    def __init__(self, format: str | None = None):
        super().__init__(format)
        self._env = None
        self._camera = None

    # -- protocol ----------------------------------------------------------------
    def _reset(self, seed: int) -> Observation:
        self.close()
        self.seed = seed
        # The suite first: it chooses MuJoCo's OpenGL backend, which MuJoCo reads at import.
        self._env = _load_suite().load("cheetah", "run", task_kwargs={"random": seed % 2**32})
        import mujoco

        timestep = self._env.reset()
        physics = self._env.physics
        self._initial_state = physics.get_state().copy()
        self._observation = self._observe(timestep)
        # Planning works on a scratch copy of the physics data so that the live
        # simulation is never touched by the expert.
        self._model = physics.model.ptr
        self._data = physics.data.ptr
        self._scratch = mujoco.MjData(self._model)
        self._state_spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        self._state_size = mujoco.mj_stateSize(self._model, self._state_spec)
        sensor = mujoco.mj_name2id(self._model, mujoco.mjtObj.mjOBJ_SENSOR, "torso_subtreelinvel")
        self._speed_index = int(self._model.sensor_adr[sensor])  # x component
        # The full-physics state vector is [time, qpos, qvel, ...]; qvel[0] is the torso's x velocity.
        self._forward_velocity_index = 1 + self._model.nq
        self._planner = SamplingPlanner(
            dims=ACTION_SIZE,
            horizon=EXPERT_HORIZON,
            samples=EXPERT_SAMPLES,
            knots=EXPERT_KNOTS,
            noise=EXPERT_NOISE,
            temperature=EXPERT_TEMPERATURE,
        )
        self._plan = None
        self._plan_step = -1
        self._plan_action = ""
        return self._observation

    def _step(self, action_text: str) -> StepResult:
        # The task never ends by itself: only the step limit stops it (LMAct §2.4).
        values = parse_action(action_text)
        legal = values is not None
        if not legal:
            values = self.random_action_values(step_random(self, "illegal"))
        timestep = self._env.step(np.asarray(values, dtype=float))
        self._observation = self._observe(timestep)
        return StepResult(
            observation=self._observation,
            reward=float(timestep.reward),
            terminated=False,
            truncated=False,
            legal=legal,
            executed_action=format_action(values),
        )

    def legal_actions(self) -> list[str]:
        """Empty: the action space is continuous (see `action_format`)."""
        return []

    def initial_state_key(self) -> str:
        if self._env is None:
            raise RuntimeError("call reset(seed) first")
        rounded = ", ".join(f"{value:.{STATE_KEY_DECIMALS}f}" for value in self._initial_state)
        return f"physics=[{rounded}]"

    def expert_action(self) -> str:
        """MPPI's next action from the current physics state (see the module constants).

        Deterministic: the noise of step t comes from a generator seeded with (seed, t),
        and the plan is warm-started from the previous step's plan when the expert was
        asked then too. Asking twice at the same step returns the same action.
        """
        if self._env is None:
            raise RuntimeError("call reset(seed) first")
        if self.done:
            raise RuntimeError("the episode is over")
        if self._plan_step == self.steps_taken:
            return self._plan_action
        import mujoco

        if self._plan is not None and self._plan_step == self.steps_taken - 1:
            plan = SamplingPlanner.shifted(self._plan)
        else:
            plan = self._planner.initial_plan()
        self._root_state = np.empty(self._state_size)
        mujoco.mj_getState(self._model, self._data, self._root_state, self._state_spec)
        self._root_warmstart = np.array(self._data.qacc_warmstart)
        rng = np.random.default_rng(stable_seed(self.id, "expert", self.seed, self.steps_taken))
        self._plan = self._planner.improve(plan, self._rollout_returns, rng)
        self._plan_step = self.steps_taken
        self._plan_action = format_action(np.round(self._plan[0], RANDOM_ACTION_DECIMALS))
        return self._plan_action

    def viewer_png(self) -> bytes | None:
        """MuJoCo's off-screen picture of the body now (envs.lmact.cheetah_frames), for
        the replay beside the observation dict; the agent's prompt never holds it. None
        when no OpenGL backend can draw."""
        if self._env is None:
            return None
        if self._camera is None:
            self._camera = CheetahCamera()
        return self._camera.png(self._model, self._data)

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None
        if self._env is not None:
            self._env.close()
        self._env = None

    # -- helpers -----------------------------------------------------------------
    @staticmethod
    def random_action_values(rng: random.Random) -> tuple[float, ...]:
        """A uniformly random action in [-1, 1]^6, rounded to four decimals."""
        return tuple(round(rng.uniform(-1.0, 1.0), RANDOM_ACTION_DECIMALS) + 0.0 for _ in range(ACTION_SIZE))

    def random_action(self, rng: random.Random) -> str:
        """A uniformly random action text, for a random baseline (legal_actions() is empty)."""
        return format_action(self.random_action_values(rng))

    @property
    def physics(self):
        return None if self._env is None else self._env.physics

    def _rollout_returns(self, candidates: np.ndarray) -> np.ndarray:
        """Forward speed summed over each candidate's horizon, simulated from the live state."""
        from mujoco import rollout

        states, sensordata = rollout.rollout(
            self._model,
            self._scratch,
            self._root_state[None],
            np.ascontiguousarray(candidates),
            initial_warmstart=self._root_warmstart[None],
        )
        # A rollout's sensor row t is read before step t integrates, so rows 1.. are the
        # speeds after steps 0..H-2; the final state's velocity stands in for the last.
        return sensordata[:, 1:, self._speed_index].sum(axis=1) + states[:, -1, self._forward_velocity_index]

    def _observe(self, timestep) -> Observation:
        observation = timestep.observation
        return Observation(text=observation_text(observation["position"], observation["velocity"]))
