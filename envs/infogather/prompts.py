"""The system prompts and observation texts of the infogather tasks.

The instructions follow the layout of Ke et al. App. B, Tables 1–2 (the game, its
rules, how the reward works, the state of play, a note that turns are scarce, the
"work like a scientist" exploration cycle, the answer format, a request to reason) in
the arena's own wording. The scene description and the record of picks and rewards,
which the paper splices into the prompt, arrive as each turn's observation instead, with
the number of turns left.
"""

from __future__ import annotations

_OPENING = "This is a text game. Your aim is to find out what makes an object rewarding."

_CYCLE = """\
Work like a careful scientist: each pick is an experiment, so choose it for what it
will teach you. Go through this cycle every turn:
- Act: pick an object (early on this can be exploratory).
- Observe: note the reward the pick gave.
- Record: keep track of every object you picked and the reward it gave.
- Review: look back over the whole record for patterns.
- Reason: work out which rules are still possible given everything you have seen.
- Hypothesise: say which rule you currently think is the right one.
- Plan: choose the next pick that best separates the rules that are still possible."""

_TURNS = """\
How a turn works:
- Each turn you see the objects in the room, every pick so far with its reward, and
  how many turns you have left. Turns are few, so do not waste them.
- Every answer that does not stop the game uses one turn, even if nothing is picked.
- An answer whose action does not name exactly one object of the room, or names an
  object you already picked, wastes the turn: nothing is picked and you learn nothing.
- Answering "stop: yes" ends the game at once (any action in that answer is ignored).
  The game also ends when the turns run out.
- Your belief (the factor and combination fields) is read on every turn. The one in
  your last answer is your final answer: it is right only if the factor field names
  the rewarding propert{ies} and the combination names the rewarding value{s}, with
  nothing extra. Say "unsure" while you do not know."""

_SINGLE_RULES = """\
Rules of the game:
- Find out, in as few picks as possible, which feature earns the reward.
- Every object has a colour and a shape; the objects of the room cover every
  combination of the colours and shapes present.
- Picking up an object gives a reward of 0 or 1, and the same object would always give
  the same reward. You may pick each object only once.
- Exactly one feature is rewarding: either one particular colour or one particular
  shape (never both, never a combination).

How the reward works: a single factor, colour or shape, decides it, and within that
factor a single value is the winner. An object scores 1 when it has the winning colour
(if colour is the factor) or the winning shape (if shape is the factor), and 0
otherwise. So a pick that scores 0 rules out both its colour and its shape."""

_CONJUNCTION_RULES = """\
Rules of the game:
- Find out, in as few picks as possible, which combination of features earns the
  reward.
- Every object has a colour, a texture and a shape; the objects of the room cover
  every combination of the colours, textures and shapes present.
- Picking up an object gives a reward of 0 or 1, and the same object would always give
  the same reward. You may pick each object only once.
- Exactly one pair of values of two different properties is rewarding: a colour with a
  shape, a shape with a texture, or a colour with a texture.

How the reward works: an object scores 1 only when it has both values of the winning
pair (for example the winning colour and the winning shape, when colour and shape are
the factors), and 0 otherwise. So a pick that scores 0 rules out all three pairs made
from its own values: its colour with its shape, its shape with its texture and its
colour with its texture."""

_SINGLE_FORMAT = """\
Answer format. Reply with these four lines (you may reason before them; only these
lines are read, and if a line appears twice the last one counts):
action: pick up <colour> <shape>
stop: <yes or no>
factor: <colour, shape or unsure>
combination: <the winning colour or shape, or unsure>

Example:
action: pick up the green cone
stop: no
factor: unsure
combination: unsure

Think it through before you answer; do not guess, every turn counts."""

_CONJUNCTION_FORMAT = """\
Answer format. Reply with these four lines (you may reason before them; only these
lines are read, and if a line appears twice the last one counts):
action: pick up <colour> <texture> <shape>
stop: <yes or no>
factor: <colour and shape, shape and texture, colour and texture, or unsure>
combination: <the two winning values, e.g. "blue cylinder", or unsure>

Example:
action: pick up the yellow glass pyramid
stop: no
factor: colour and texture
combination: yellow glass

Think it through before you answer; do not guess, every turn counts."""


# Guided reasoning (Ke et al. §4.3, App. B Table 4): the cycle spells out the
# strategy, so the model does not have to derive it.
_GUIDED_STRATEGY = """How to choose the next pick (follow this strategy):
- While no pick has been rewarded: try values you have not tried yet, covering as many
  new values at once as possible. If red, ball and wood are all untried, a red wooden
  ball tests all three; next time pick one made of other untried values.
- Once one or two rewarded objects are known: isolate what caused the reward. If a
  blue plastic cube paid, try a blue wooden cube and a red plastic cube to tell apart
  the properties that might be responsible. Continue until at least two rewarded
  objects pin the rule down.
- When more than two rewarded objects are known: pick among the remaining objects at
  random to confirm."""


def _instructions(rules: str, answer_format: str, plural: bool, guided: bool = False) -> str:
    turns = _TURNS.format(ies="ies" if plural else "y", s="s" if plural else "")
    cycle = _CYCLE + ("\n\n" + _GUIDED_STRATEGY if guided else "")
    return "\n\n".join((_OPENING, rules, turns, cycle, answer_format))


SINGLE_INSTRUCTIONS = _instructions(_SINGLE_RULES, _SINGLE_FORMAT, plural=False)
CONJUNCTION_INSTRUCTIONS = _instructions(_CONJUNCTION_RULES, _CONJUNCTION_FORMAT, plural=True)
SINGLE_GUIDED_INSTRUCTIONS = _instructions(_SINGLE_RULES, _SINGLE_FORMAT, plural=False, guided=True)
CONJUNCTION_GUIDED_INSTRUCTIONS = _instructions(_CONJUNCTION_RULES, _CONJUNCTION_FORMAT, plural=True, guided=True)


def room_text(scene) -> str:
    return "\n".join([f"Objects in the room ({len(scene.objects)}):"] + [f"- {obj.name}" for obj in scene.objects])


def turn_line(number: int, turn) -> str:
    """One line of the record for a TurnRecord-like `turn` (`kind` "pick", "wasted" or
    "stop", `object_name`, `reward`, `reason`)."""
    if turn.kind == "pick":
        return f"{number}. picked up the {turn.object_name}: reward {turn.reward}"
    if turn.kind == "wasted":
        return f"{number}. turn wasted, nothing picked ({turn.reason})"
    return f"{number}. stopped"


def observation_text(room: str, turn_lines: list[str], turns_left: int, ended: str | None) -> str:
    """The room (`room_text` of the scene), the record of every turn so far (`turn_line`
    of each) and the turns left, or how the game ended."""
    lines = [room, ""]
    if turn_lines:
        lines.append("Your turns so far:")
        lines.extend(turn_lines)
    else:
        lines.append("You have not picked anything yet.")
    lines.append("")
    lines.append(f"The game is over ({ended})." if ended else f"Turns left: {turns_left}.")
    return "\n".join(lines)
