"""What TextAtari's agents ask of the model beyond the scenario's header (§3.2, App. D.2),
in the arena's own words with the paper's information and answer formats.

- Naive (the paper's Basic agent): the header's answer format only — one action, as
  JSON; no reasoning asked for and no memory (the preset keeps one observation).
- CoT: the request below, appended to the system prompt: breathe, think step by step,
  lay the thought process out, then decide; a JSON reply with the two keys
  "thought process" and "action". Its short-term memory is the most recent
  state–action pairs (the preset keeps the last SHORT_TERM_MEMORY observations before
  the current one, earlier replies reduced to the action they chose).
- Reflexion (CoT with reflection): at the end of an episode the model gets the game
  coach's instruction, the game, the plans carried into the episode, and the whole
  episode — every observation, the model's answer (its thought process), the action
  played and its reward — with the final score, and answers in JSON with the four keys
  "Strategy", "Knowledge", "Reflexion" and "New Plan". That reply is the reflection
  block; up to three recent blocks open the next episode under "Recent plans"
  (arena.services.episodes.reflections_for).
"""

from __future__ import annotations

from envs.core import ReflectionRequest, TracedStep

# The authors' earlier code (Text-Gym-Agents, `short_mem_num`) keeps the last 10
# transitions; the paper names no number.
SHORT_TERM_MEMORY = 10

COT_REQUEST = (
    "\n\nBefore you choose, take a deep breath. Think about the choice of action step by step and write your "
    "thought process out in full; then decide on an action that follows from it. Your whole reply is one JSON "
    'object with two keys, "thought process" and "action".'
)

RECENT_PLANS_HEADER = "\n\nRecent plans (your reflections after your latest attempts at this game):\n"

REFLECTION_KEYS = ("Strategy", "Knowledge", "Reflexion", "New Plan")

COACH = (
    "You are a game coach who analyses play. Go through the game below and sum up, step by step, the strategy "
    "that was played. What follows is the record of one earlier attempt of yours at a task in an environment, "
    "and the attempt did not succeed. Do not describe the environment; think about the strategy and the path "
    "you took, and work out step by step which mistakes led to the failure. Then write a short new plan of "
    "action that makes up for the mistake, naming the specific actions you should have taken. For instance, if "
    "you did A and B but left out C, conclude that leaving out C was the key mistake, and plan how to do C with "
    "actions of this environment. Remind yourself of the plan you will follow in the next attempt and give it "
    'after "Plan". Reply in JSON with the four keys ' + ", ".join(f'"{key}"' for key in REFLECTION_KEYS) + "."
)

QUESTIONS = (
    "Answer these directly, without further explanation: 1. Sum up the strategy played in this trajectory and "
    "how well it did. 2. Sum up what it teaches about the game that would help a player do better. 3. Analyse "
    "why this strategy fell short. 4. Give a new plan that would score more. Reply in JSON with the four keys "
    + ", ".join(f'"{key}"' for key in REFLECTION_KEYS) + "."
)


def game_text(title: str, synopsis: str, goal: str, numbered_actions: str) -> str:
    return f"You are playing {title}. {synopsis} {goal}\n\nThe actions:\n{numbered_actions}"


def step_text(number: int, step: TracedStep) -> str:
    return (
        f"Step {number}\n{step.observation}\nYour answer: {step.answer.strip() or '(none)'}\n"
        f"Action played: {step.action}\nReward: {step.reward:+g}"
    )


def reflection_request(
    game: str, trace: list[TracedStep], plans: list[str], score: float, outcome: str
) -> ReflectionRequest:
    """The Reflexion agent's end-of-episode request over the whole episode."""
    head = [{"role": "system", "content": COACH}, {"role": "system", "content": game}]
    head += [
        {"role": "system", "content": f"Recent plans, attempt {number}: {plan}"}
        for number, plan in enumerate(plans, 1)
    ]
    return ReflectionRequest(
        head=head,
        intro=f"Your trajectory in the episode just played ({len(trace)} steps):",
        steps=[step_text(number, step) for number, step in enumerate(trace, 1)],
        left_out="(The first {count} steps are left out: the whole episode does not fit the context window.)",
        closing=f"Your performance: a game score of {score:g} ({outcome}).",
        tail=[{"role": "user", "content": QUESTIONS}],
    )
