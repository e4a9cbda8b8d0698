"""The games of the suite, one module each, and their verbalisers.

TextAtari §2.1 lists 23 games; a game gets a row in the suite's spec table
(envs.textatari.specs) only once its verbaliser (describer, translator, vocabulary,
manual) is complete and tested on the emulator.
"""

from envs.textatari.games.asteroids import Asteroids
from envs.textatari.games.battlezone import BattleZone
from envs.textatari.games.berzerk import Berzerk
from envs.textatari.games.bowling import Bowling
from envs.textatari.games.boxing import Boxing
from envs.textatari.games.breakout import Breakout
from envs.textatari.games.demonattack import DemonAttack
from envs.textatari.games.freeway import Freeway
from envs.textatari.games.frostbite import Frostbite
from envs.textatari.games.hero import Hero
from envs.textatari.games.montezumarevenge import MontezumaRevenge
from envs.textatari.games.mspacman import MsPacman
from envs.textatari.games.pitfall import Pitfall
from envs.textatari.games.pong import Pong
from envs.textatari.games.privateeye import PrivateEye
from envs.textatari.games.qbert import Qbert
from envs.textatari.games.riverraid import Riverraid
from envs.textatari.games.seaquest import Seaquest
from envs.textatari.games.skiing import Skiing
from envs.textatari.games.spaceinvaders import SpaceInvaders
from envs.textatari.games.tennis import Tennis
from envs.textatari.games.venture import Venture
from envs.textatari.games.videopinball import VideoPinball

# In the order of the suite's pages: alphabetical, as TextAtari's tables list them.
VERBALISERS = (
    Asteroids(),
    BattleZone(),
    Berzerk(),
    Bowling(),
    Boxing(),
    Breakout(),
    DemonAttack(),
    Freeway(),
    Frostbite(),
    Hero(),
    MontezumaRevenge(),
    MsPacman(),
    Pitfall(),
    Pong(),
    PrivateEye(),
    Qbert(),
    Riverraid(),
    Seaquest(),
    Skiing(),
    SpaceInvaders(),
    Tennis(),
    Venture(),
    VideoPinball(),
)
