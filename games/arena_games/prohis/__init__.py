from .state import *  # noqa: F403
from .state import GAME  # noqa: F401
