"""What running out of time costs (docs/rules.md section 6).

- Out of time without having played: draw one tile, the turn ends (000, 001).
- Out of time in the middle of a manipulation, depending on ``rules.timeout_penalty``:

  - ``DRAW_THREE`` (000, 001, 003): the table is restored, the player takes back the tiles they
    played and draws ``rules.timeout_draw`` (3) tiles. 001 adds that tiles whose place can't be
    remembered go back into the pool.
  - ``DRAW_LEFTOVERS`` (001, strict tournament rule): as ``DRAW_THREE``, and the player also draws
    as many tiles as were left over. 001 states it as an addition to the rule it follows ("the
    players may stipulate that as many tiles as are left over must be drawn as a penalty"), so we
    add it to the 3-tile penalty rather than replace it: a stricter rule never costs less.
  - ``RETURN_TO_POOL`` (004): the table is restored, no 3-tile penalty; tiles left over go to the
    bottom of the pool. The player has then laid nothing this turn, and 004 says every turn either
    lays a tile or draws one ("debe bajar por lo menos una ficha o tomar una ficha del banco"), so
    the player draws 1, as for a plain timeout. This is our reading; 004 names no draw here.

"Left over" tiles are table tiles the players can no longer put back where they were (001).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import _, join_sentences, ngettext
from referee.ruleset import RuleSet, TimeoutPenalty
from referee.tiles import Tile, format_tiles
from referee.verdict import as_tiles

__all__ = ["Penalty", "penalty_for_timeout", "PENALTY_CODES"]

_CLASSIC = RuleSet.classic()

PENALTY_CODES = ("timeout_no_play", "unfinished_manipulation")


@dataclass(frozen=True)
class Penalty:
    """What a player must do after running out of time. The turn always ends."""

    code: str
    """``"timeout_no_play"`` or ``"unfinished_manipulation"``."""
    draw: int
    """Tiles the player draws from the pool."""
    back_to_rack: tuple[Tile, ...]
    """Tiles the player takes back from the table (the ones they had laid this turn)."""
    to_pool: tuple[Tile, ...]
    """Left-over tiles that go back into the pool (to the bottom of it under variant 004)."""
    table_restored: bool
    """The table goes back to how it was at the start of the turn."""
    policy: TimeoutPenalty | None
    """The rule set's penalty for an unfinished manipulation; None for a plain timeout."""
    message: str
    """What happens, as sentences a player understands."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: code, draw, back_to_rack, to_pool (tile codes), table_restored, policy, message."""
        return {
            "code": self.code,
            "draw": self.draw,
            "back_to_rack": [t.code for t in self.back_to_rack],
            "to_pool": [t.code for t in self.to_pool],
            "table_restored": self.table_restored,
            "policy": self.policy.value if self.policy is not None else None,
            "message": self.message,
        }


def penalty_for_timeout(
    laid: Sequence[Tile] | str = (),
    left_over: Sequence[Tile] | str = (),
    touched_table: bool = False,
    rules: RuleSet = _CLASSIC,
) -> Penalty:
    """The cost of running out of time (docs/rules.md section 6).

    ``laid``: rack tiles the player had put on the table this turn; ``left_over``: table tiles that
    can no longer be put back in place; ``touched_table``: the player had started moving table
    tiles. With none of these the player simply did not play in time: draw one tile.
    """
    laid_tiles = as_tiles(laid)
    left = as_tiles(left_over)
    if not laid_tiles and not left and not touched_table:
        return Penalty(
            "timeout_no_play",
            1,
            (),
            (),
            False,
            None,
            _("Time is up and nothing was played: draw one tile; the turn ends."),
        )
    policy = rules.timeout_penalty
    parts = [_("Time is up in the middle of a move: the table goes back to how it was.")]
    if laid_tiles:
        parts.append(_("Take back {tiles}.").format(tiles=format_tiles(laid_tiles)))
    if policy is TimeoutPenalty.RETURN_TO_POOL:
        draw = 1
        if left:
            parts.append(
                ngettext("{tiles} goes to the bottom of the pool.", "{tiles} go to the bottom of the pool.", len(left)).format(
                    tiles=format_tiles(left)
                )
            )
        parts.append(_("No penalty, but nothing was laid: draw one tile."))
    else:
        if left:
            parts.append(
                ngettext("{tiles} goes back into the pool.", "{tiles} go back into the pool.", len(left)).format(
                    tiles=format_tiles(left)
                )
            )
        draw = rules.timeout_draw
        if policy is TimeoutPenalty.DRAW_LEFTOVERS:
            draw += len(left)
        parts.append(ngettext("Draw {count} tile as a penalty.", "Draw {count} tiles as a penalty.", draw).format(count=draw))
    parts.append(_("The turn ends."))
    # Whole sentences, each translated on its own, joined as the language writes them (no space
    # between Chinese or Japanese sentences).
    return Penalty("unfinished_manipulation", draw, laid_tiles, left, True, policy, join_sentences(parts))
