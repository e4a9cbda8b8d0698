"""BALROG's BabyAI tasks (BALROG App. A) as the arena plays them: registration, the
instruction prompt, invalid outputs, the end of an episode, the expert, determinism and
the image format."""

import pytest
from PIL import Image

from envs.balrog import babyai
from envs.balrog.babyai_level import HELD_OUT_PHRASES
from envs.balrog.protocol import invalid_action_text
from envs.core import ExpertPolicy, RandomLegalPolicy, Task
from envs.registry import get_task_class, make

TASKS = {
    "balrog/babyai-goto": ("BabyAI-MixedTrainLocal-v0/goto", 64, "go to "),
    "balrog/babyai-pickup": ("BabyAI-MixedTrainLocal-v0/pickup", 64, "pick up "),
    "balrog/babyai-open": ("BabyAI-MixedTrainLocal-v0/open", 128, "open the "),
    "balrog/babyai-putnext": ("BabyAI-MixedTrainLocal-v0/putnext", 128, "put "),
    "balrog/babyai-pick-up-seq-go-to": ("BabyAI-MixedTrainLocal-v0/pick_up_seq_go_to", 128, ""),
}
ACTIONS = ["turn left", "turn right", "go forward", "pick up", "drop", "toggle"]


def play_expert(task: Task):
    while not (result := task.step(task.expert_action())).done:
        pass
    return result


@pytest.mark.parametrize("task_id", TASKS)
def test_it_registers_each_task_with_balrogs_name_and_the_levels_step_limit(task_id):
    balrog_name, limit, mission_start = TASKS[task_id]
    cls = get_task_class(task_id)
    assert cls.suite == "balrog" and cls.balrog_name == balrog_name
    assert cls.title.startswith("BabyAI: ") and cls.formats == ("text", "rgb")
    assert cls().legal_actions() == ACTIONS and cls.default_action == "go forward"
    assert cls.baselines == {"random": RandomLegalPolicy, "expert": ExpertPolicy}
    for seed in range(5):
        task = make(task_id)
        task.reset(seed)
        assert task.max_steps == cls.max_steps == limit
        assert task.mission.startswith(mission_start)


def test_the_fifth_task_asks_to_pick_up_one_object_and_go_to_another_in_either_order():
    missions = []
    for seed in range(30):
        task = make("balrog/babyai-pick-up-seq-go-to")
        task.reset(seed)
        missions.append(task.mission)
    assert any(m.startswith("pick up ") and ", then go to " in m for m in missions)
    assert any(m.startswith("go to ") and " after you pick up " in m for m in missions)
    assert all(", then go to " in m or " after you pick up " in m for m in missions)


@pytest.mark.parametrize("task_id", TASKS)
def test_missions_never_name_the_objects_held_out_for_babyai_texts_test_level(task_id):
    for seed in range(40):
        task = make(task_id)
        task.reset(seed)
        assert not any(phrase in task.mission for phrase in HELD_OUT_PHRASES)


def test_the_instruction_prompt_names_the_mission_and_lists_balrogs_actions_in_order():
    task = make("balrog/babyai-open")
    task.reset(3)
    prompt = task.instruction_prompt()
    assert f"Your goal is to {task.mission}." in prompt
    listed = [line.split(":")[0] for line in prompt.splitlines() if line.split(":")[0] in ACTIONS]
    assert listed == ACTIONS
    assert "'toggle'" in prompt and "observation does not change" in prompt


def test_an_invalid_output_plays_go_forward_and_the_next_observation_says_so():
    task, twin = make("balrog/babyai-goto"), make("balrog/babyai-goto")
    task.reset(7)
    twin.reset(7)
    result = task.step("walk to the ball please")
    expected = twin.step("go forward")
    assert (result.legal, result.executed_action) == (False, "go forward")
    assert result.observation.text == invalid_action_text('go forward', expected.observation.text)
    assert task.steps_taken == 1


@pytest.mark.parametrize("task_id", TASKS)
def test_the_expert_accomplishes_the_mission_which_ends_the_episode_with_progress_100(task_id):
    for seed in range(20):
        task = make(task_id)
        task.reset(seed)
        result = play_expert(task)
        assert result.terminated and not result.truncated, (task_id, seed)
        assert result.end_reason == "mission accomplished"
        assert 0 < result.reward <= 1
        assert task.episode_metrics() == {"progress": 100.0}
        with pytest.raises(RuntimeError, match="episode is over"):
            task.step("go forward")


def test_after_picking_up_its_target_the_agent_is_told_what_it_carries():
    task = make("balrog/babyai-pickup")
    task.reset(2)
    assert task.mission == "pick up the grey key"
    assert play_expert(task).observation.text.splitlines()[0] == "You carry a grey key"


def test_opening_the_locked_door_shows_it_open_in_front_of_the_agent():
    task = make("balrog/babyai-open")
    first = task.reset(14).text.splitlines()
    assert "a locked blue door 1 step right and 4 steps forward" in first
    final = play_expert(task).observation.text.splitlines()
    assert final[0] == "You carry a blue key"
    assert "an open blue door 1 step forward" in final


@pytest.mark.parametrize("task_id", TASKS)
def test_the_level_holds_no_distractors_as_in_balrogs_config(task_id):
    # BALROG's config builds MixedTrainLocal with num_dists 0: only the mission's
    # objects (and, to open a door, its key) lie in the room.
    task = make(task_id)
    for seed in range(5):
        task.reset(seed)
        objects = [cell for cell in task._level.grid.grid if cell is not None and cell.type in ("key", "ball", "box")]
        expected = {"balrog/babyai-goto": 1, "balrog/babyai-pickup": 1, "balrog/babyai-open": 1}.get(task_id, 2)
        assert len(objects) == expected, (task_id, seed)


def test_the_step_limit_truncates_an_episode_that_never_succeeds_with_progress_0():
    task = make("balrog/babyai-goto")
    task.reset(11)
    results = [task.step("turn left") for _ in range(task.max_steps)]
    assert not any(r.done for r in results[:-1])
    assert results[-1].truncated and not results[-1].terminated
    assert results[-1].end_reason == "step limit" and results[-1].reward == 0
    assert task.episode_metrics() == {"progress": 0.0}


@pytest.mark.parametrize("task_id", TASKS)
def test_the_same_seed_replays_the_same_episode(task_id):
    actions = ["go forward", "turn left", "pick up", "go forward", "toggle", "nonsense", "turn right", "drop"] * 3

    def run(task):
        first = task.reset(42)
        trace = [task.mission, task.initial_state_key(), first.text, first.image.tobytes()]
        for action in actions:
            result = task.step(action)
            observation = result.observation
            trace.append((result.executed_action, result.reward, result.done, observation.text, observation.image.tobytes()))
            if result.done:
                break
        return trace

    reused = make(task_id, "rgb")
    first = run(reused)
    assert run(make(task_id, "rgb")) == first
    reused.reset(43)
    assert run(reused) == first


@pytest.mark.parametrize("task_id", TASKS)
def test_different_seeds_give_different_layouts_and_missions(task_id):
    keys, missions, views = set(), set(), set()
    for seed in range(30):
        task = make(task_id)
        views.add(task.reset(seed).text)
        keys.add(task.initial_state_key())
        missions.add(task.mission)
    assert len(keys) == 30 and len(views) >= 25 and len(missions) >= 5


def test_the_initial_state_key_is_the_same_for_the_same_seed_and_task_only():
    first, again, other = make("balrog/babyai-goto"), make("balrog/babyai-goto"), make("balrog/babyai-pickup")
    for task in (first, again, other):
        task.reset(9)
    assert first.initial_state_key() == again.initial_state_key() != other.initial_state_key()


def test_the_rgb_format_shows_the_agents_view_as_an_image_beside_the_same_text():
    text_task, rgb_task = make("balrog/babyai-putnext"), make("balrog/babyai-putnext", "rgb")
    text_obs, rgb_obs = text_task.reset(4), rgb_task.reset(4)
    assert text_obs.image is None and text_obs.text.strip()
    assert isinstance(rgb_obs.image, Image.Image) and rgb_obs.image.mode == "RGB"
    assert rgb_obs.image.size == (7 * babyai.TILE_PIXELS, 7 * babyai.TILE_PIXELS)
    assert rgb_obs.text == text_obs.text
    turned = rgb_task.step("turn left").observation
    assert turned.image.tobytes() != rgb_obs.image.tobytes()


@pytest.mark.parametrize("task_id", TASKS)
def test_the_random_policy_plays_whole_episodes_and_the_expert_can_take_over(task_id):
    for seed in range(2):
        task = make(task_id)
        task.reset(seed)
        policy = RandomLegalPolicy(seed)
        for _ in range(10):
            result = task.step(policy.act(task))
            if result.done:
                break
        else:
            # The bot was told the random moves; it undoes them and carries on.
            assert task.expert_action() in ACTIONS
        while not task.done:
            task.step(policy.act(task))
        assert task.episode_metrics()["progress"] in (0.0, 100.0)
