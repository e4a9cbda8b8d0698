"""Prompt sizes of the TextAtari tasks (envs.core.PromptSize: the submission preview's
token estimate), measured by bench/prompt_sizes.py --per-option --without-expert: the
random baseline's answers through the arena's chat strategy (legal actions shown,
history window 16, naive answers), one episode per scenario at the 1,000-step limit,
averaged over the four scenarios a submission plays. A game's first prompt is about
560 tokens in the basic and obscured scenarios, 830 with the manual and 970 with the
reference trajectory (the mean over the games); each earlier step kept adds one
narrated observation with its answer. No typical episode length is given: the expert
plays to the step limit, which the estimate then uses.
"""

from envs.core import PromptSize

PROMPT_SIZES = {
    "asteroids": PromptSize(first=770, per_step=248, answer=2),
    "battlezone": PromptSize(first=751, per_step=140, answer=2),
    "berzerk": PromptSize(first=746, per_step=282, answer=2),
    "bowling": PromptSize(first=647, per_step=120, answer=1),
    "boxing": PromptSize(first=766, per_step=187, answer=2),
    "breakout": PromptSize(first=620, per_step=157, answer=1),
    "demonattack": PromptSize(first=610, per_step=203, answer=1),
    "freeway": PromptSize(first=709, per_step=310, answer=1),
    "frostbite": PromptSize(first=896, per_step=215, answer=2),
    "hero": PromptSize(first=809, per_step=152, answer=2),
    "montezumarevenge": PromptSize(first=805, per_step=184, answer=2),
    "mspacman": PromptSize(first=750, per_step=276, answer=1),
    "pitfall": PromptSize(first=833, per_step=220, answer=2),
    "pong": PromptSize(first=626, per_step=160, answer=1),
    "privateeye": PromptSize(first=755, per_step=160, answer=2),
    "qbert": PromptSize(first=640, per_step=122, answer=1),
    "riverraid": PromptSize(first=742, per_step=137, answer=2),
    "seaquest": PromptSize(first=810, per_step=203, answer=2),
    "skiing": PromptSize(first=576, per_step=152, answer=1),
    "spaceinvaders": PromptSize(first=614, per_step=113, answer=1),
    "tennis": PromptSize(first=799, per_step=205, answer=2),
    "venture": PromptSize(first=894, per_step=290, answer=2),
    "videopinball": PromptSize(first=650, per_step=117, answer=1),
}
