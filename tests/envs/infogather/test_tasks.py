"""The task protocol: registration, configuration, determinism, legality, termination,
budget, replay from executed actions."""

import pytest

from envs.core import Observation, StepResult, Task
from envs.registry import get_task_class

SingleFeature = get_task_class("infogather/single-feature")
Conjunction = get_task_class("infogather/conjunction")

TASKS = (SingleFeature, Conjunction)


def answer(action=None, stop=False, factor="unsure", combination="unsure"):
    return f"action: {action or 'none'}\nstop: {'yes' if stop else 'no'}\nfactor: {factor}\ncombination: {combination}"


def test_registered_with_the_suite():
    assert get_task_class("infogather/single-feature") is SingleFeature
    assert get_task_class("infogather/conjunction") is Conjunction
    for cls in TASKS:
        assert issubclass(cls, Task)
        assert cls.suite == "infogather"
        assert cls.formats == ("text",)
        assert cls.instructions and cls.description and cls.title


def test_instructions_describe_the_answer_format():
    for cls, words in ((SingleFeature, ("colour", "shape")), (Conjunction, ("texture", "colour and texture"))):
        text = cls.instructions
        for key in ("action:", "stop:", "factor:", "combination:"):
            assert key in text
        for word in words:
            assert word in text
        assert "only once" in text and "wastes the turn" in text


@pytest.mark.parametrize("cls", TASKS)
def test_format_argument(cls):
    assert cls().format == "text"
    assert cls("text").format == "text"
    with pytest.raises(ValueError):
        cls("rgb")


def test_default_configuration_is_three_colours():
    task = SingleFeature()
    task.reset(0)
    assert task.num_colours == 3
    assert len(task.scene.objects) == 9
    assert task.max_steps == 10 == SingleFeature.max_steps
    conj = Conjunction()
    conj.reset(0)
    assert len(conj.scene.objects) == 27
    assert conj.max_steps == 28 == Conjunction.max_steps


@pytest.mark.parametrize("cls", TASKS)
@pytest.mark.parametrize("colours", [3, 7, 10])
def test_configure_number_of_colours(cls, colours):
    task = cls().configure(num_colours=colours)
    task.reset(1)
    assert len(task.scene.values["colour"]) == colours
    per_colour = 3 if cls is SingleFeature else 9
    assert len(task.scene.objects) == colours * per_colour
    assert task.max_steps == colours * per_colour + 1
    assert task.episode_metrics()["num_colours"] == colours


def test_configure_validates_and_takes_a_budget():
    task = SingleFeature()
    with pytest.raises(ValueError):
        task.configure(num_colours=1)
    with pytest.raises(ValueError):
        task.configure(num_colours=13)
    with pytest.raises(ValueError):
        task.configure(step_budget=0)
    task.configure(num_colours=4, step_budget=3)
    task.reset(0)
    assert task.max_steps == 3


def test_configure_before_reset_is_required():
    task = SingleFeature()
    task.reset(0)
    task.configure(num_colours=5)
    with pytest.raises(RuntimeError):
        task.legal_actions()


@pytest.mark.parametrize("cls", TASKS)
def test_same_seed_same_episode(cls):
    a, b = cls(), cls()
    assert a.reset(42) == b.reset(42)
    assert a.initial_state_key() == b.initial_state_key()
    assert a.rule == b.rule
    c = cls()
    keys = {c.reset(seed) and c.initial_state_key() for seed in range(20)}
    assert len(keys) == 20


def test_colour_count_changes_the_episode():
    a = SingleFeature().configure(num_colours=3)
    b = SingleFeature().configure(num_colours=4)
    a.reset(0), b.reset(0)
    assert a.initial_state_key() != b.initial_state_key()


@pytest.mark.parametrize("cls", TASKS)
def test_rules_are_drawn_over_the_whole_space(cls):
    task = cls()
    factors = set()
    for seed in range(200):
        task.reset(seed)
        factors.add(task.rule.factors)
        assert task.rule in task.tracker.hypotheses
    expected = {("colour",), ("shape",)} if cls is SingleFeature else {("colour", "shape"), ("shape", "texture"), ("colour", "texture")}
    assert factors == expected


def test_observation_lists_room_history_and_budget():
    task = SingleFeature()
    obs = task.reset(3)
    assert isinstance(obs, Observation) and obs.image is None
    for o in task.scene.objects:
        assert f"- {o.name}" in obs.text
    assert "Turns left: 10." in obs.text
    first = task.scene.objects[0].name
    result = task.step(answer(f"pick up the {first}"))
    assert f"1. picked up the {first}: reward {int(result.reward)}" in result.observation.text
    assert "Turns left: 9." in result.observation.text


def test_legal_pick_gives_the_rule_reward_and_is_not_pickable_again():
    task = Conjunction()
    task.reset(5)
    for o in task.scene.objects[:5]:
        result = task.step(answer(o.name))
        assert isinstance(result, StepResult)
        assert result.legal and not result.done
        assert result.reward == task.rule.predicts(o)
        assert result.executed_action.startswith(f"action: pick up {o.name}; stop: no")
        assert o.name not in task.legal_actions()
    assert len(task.legal_actions()) == 27 - 5


def test_rewarding_objects_always_pay():
    task = SingleFeature()
    for seed in range(30):
        task.reset(seed)
        total = 0.0
        for name in list(task.legal_actions()):
            total += task.step(name).reward
        assert total == sum(task.rule.predicts(o) for o in task.scene.objects) == 3


def test_repicking_wastes_the_step():
    task = SingleFeature()
    task.reset(0)
    name = task.scene.objects[0].name
    task.step(answer(name))
    before = task.picked
    result = task.step(answer(name))
    assert not result.legal
    assert result.reward == 0.0
    assert not result.done
    assert "already picked" in result.info["illegal_reason"]
    assert task.picked == before
    assert task.steps_taken == 2
    assert "2. turn wasted, nothing picked (the " in result.observation.text


@pytest.mark.parametrize("text", ["", "hello", "action: purple unicorn", "action: pick up anything\nstop: no", "stop: no"])
def test_malformed_answer_wastes_the_step(text):
    task = SingleFeature()
    task.reset(0)
    result = task.step(text)
    assert not result.legal and not result.done
    assert task.picked == {}
    assert task.steps_taken == 1
    assert result.executed_action.split(";")[1].strip() == "stop: no"


def test_stop_terminates():
    task = SingleFeature()
    task.reset(0)
    task.step(answer(task.scene.objects[0].name))
    result = task.step(answer(task.scene.objects[1].name, stop=True, factor="colour", combination="red"))
    assert result.terminated and not result.truncated and result.done
    assert result.legal
    assert result.end_reason == "stopped"
    assert len(task.picked) == 1  # the action of a stop answer is ignored
    assert result.executed_action.startswith("action: none; stop: yes")
    assert "The game is over (stopped)." in result.observation.text
    with pytest.raises(RuntimeError):
        task.step("stop")


def test_budget_truncates():
    task = SingleFeature().configure(step_budget=3)
    task.reset(0)
    results = [task.step("nonsense") for _ in range(3)]
    assert [r.done for r in results] == [False, False, True]
    last = results[-1]
    assert last.truncated and not last.terminated
    assert last.end_reason == "step budget used"
    assert "The game is over (step budget used)." in last.observation.text


def test_default_budget_allows_every_pick_and_a_final_answer():
    task = SingleFeature()
    task.reset(2)
    for _ in range(9):
        result = task.step(task.legal_actions()[0])
        assert result.legal and not result.done
    assert task.legal_actions() == ["stop"]
    result = task.step("stop")
    assert result.terminated and result.end_reason == "stopped"


def test_step_before_reset():
    with pytest.raises(RuntimeError):
        SingleFeature().step("stop")
    with pytest.raises(RuntimeError):
        SingleFeature().initial_state_key()


def test_extract_action():
    completion = "Let me think.\n**Action:** pick up the Red Ball\n**Stop:** no\nFactor: colour\nWinning combination: red"
    assert SingleFeature.extract_action(completion) == "action: pick up the Red Ball; stop: no; factor: colour; combination: red"
    assert SingleFeature.extract_action("  red ball \n") == "red ball"


@pytest.mark.parametrize("cls", TASKS)
def test_replaying_executed_actions_reproduces_the_episode(cls):
    task = cls().configure(num_colours=4)
    task.reset(9)
    names = [o.name for o in task.scene.objects]
    script = [
        answer(names[0], factor="colour", combination="whatever"),
        answer(names[0]),  # re-pick: wasted
        "gibberish",
        f"**Action**: {names[3].upper()}\n**Stop**: no\nfactor: shape; combination: {names[3]}",
        answer(names[5], stop=True, factor="colour and shape", combination=names[5]),
    ]
    executed, observations = [], []
    for text in script:
        result = task.step(text)
        executed.append(result.executed_action)
        observations.append((result.observation, result.reward, result.legal, result.done))
    metrics = task.episode_metrics()

    again = cls().configure(num_colours=4)
    again.reset(9)
    replayed = []
    for text in executed:
        result = again.step(text)
        replayed.append((result.observation, result.reward, result.legal, result.done))
        assert result.executed_action == text
    assert replayed == observations
    assert again.episode_metrics() == metrics


ODD_TEXTS = [
    "None",
    "none of them",
    "Choice: {a}",
    "{a}; {b}",
    "action: {a} * stop: no",
    "Which one? {a}",
    "{a} " + "and also " * 40 + "{b}",
    "action: pick up {a}, factor: colour\nstop: maybe",
    "```json\n{{\"action\": \"{b}\", \"stop\": false}}\n```",
    "action: {a}\naction: {a}",
    "stop",
]


@pytest.mark.parametrize("cls", TASKS)
def test_replay_is_stable_for_odd_answers(cls):
    task = cls()
    task.reset(11)
    a, b = task.scene.objects[0].name, task.scene.objects[1].name
    script = [text.format(a=a, b=b) for text in ODD_TEXTS]
    executed, seen = [], []
    for text in script:
        result = task.step(text)
        executed.append(result.executed_action)
        seen.append((result.observation.text, result.reward, result.legal, result.done))
        if result.done:
            break
    again = cls()
    again.reset(11)
    for text, expected in zip(executed, seen):
        result = again.step(text)
        assert result.executed_action == text
        assert (result.observation.text, result.reward, result.legal, result.done) == expected
