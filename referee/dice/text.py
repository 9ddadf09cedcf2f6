"""Rummikub Dice answers as sentences a player reads: each set, chain, bonus, and a whole arrangement."""

from __future__ import annotations

from referee.dice.arrangement import DiceArrangement, DiceSet
from referee.dice.rules import BONUS_CHAIN, BONUS_ONE_RUN, BONUS_THREE_GROUPS, BONUS_TWO_RUNS
from referee.i18n import _
from referee.tiles import Tile

__all__ = ["die_label", "set_sentence", "bonus_sentence", "format_arrangement"]


def die_label(face: Tile, tile: Tile) -> str:
    """A die as shown (``R5``), or with what a joker stands for (``J=R5``)."""
    return face.code if face == tile else f"{face.code}={tile.code}"


def set_sentence(index: int, s: DiceSet) -> str:
    """One set of an arrangement as a sentence (``index`` counts from 0)."""
    # Whole sentences with their punctuation inside _(): Chinese and Japanese end with 。 and use
    # full-width brackets, so nothing is glued on outside the translation. The jokers stay in
    # notation ("J=B6").
    dice = " ".join(s.codes)
    values = {"n": index + 1, "dice": dice, "points": s.points}
    if s.jokers:
        values["jokers"] = ", ".join(f"J={t.code}" for _pos, t in s.jokers)
        if s.kind == "run":
            return _("Set {n}, run {dice}: {points} points ({jokers}).").format(**values)
        return _("Set {n}, group {dice}: {points} points ({jokers}).").format(**values)
    if s.kind == "run":
        return _("Set {n}, run {dice}: {points} points.").format(**values)
    return _("Set {n}, group {dice}: {points} points.").format(**values)


def bonus_sentence(bonus: str) -> str:
    """The name of a bonus rule (``BONUS_*``) in the current language."""
    return {
        BONUS_CHAIN: _("All 9 dice in one chain"),
        BONUS_TWO_RUNS: _("All 9 dice in two runs"),
        BONUS_THREE_GROUPS: _("All 9 dice in three groups"),
        BONUS_ONE_RUN: _("All 9 dice in one run"),
    }[bonus]


def format_arrangement(arr: DiceArrangement) -> str:
    """The arrangement in readable text: score, set by set, chain by chain, unused dice, bonus."""
    lines = [_("Roll: {faces}").format(faces=" ".join(f.code for f in arr.faces))]
    if arr.bonus:
        lines.append(
            _("Score: {score} ({bonus}).").format(score=arr.score, bonus=bonus_sentence(arr.bonus))
        )
    else:
        lines.append(_("Score: {score}.").format(score=arr.score))
    if not arr.sets:
        lines.append(_("No run or group can be made from these dice."))
    for si, s in enumerate(arr.sets):
        lines.append("  " + set_sentence(si, s))
    for ci, chain in enumerate(arr.chains):
        sets = ", ".join(str(i + 1) for i in chain.sets)
        shared = ", ".join(die_label(sd.face, sd.tile) for sd in chain.shared)
        lines.append(
            "  " + _("Chain {n}: sets {sets}, joined by {dice} (each counts twice).").format(
                n=ci + 1, sets=sets, dice=shared
            )
        )
    if arr.unused:
        lines.append("  " + _("Not used: {dice}.").format(dice=" ".join(f.code for f in arr.unused_faces)))
    if arr.bonus:
        lines.append(
            "  " + _("{bonus}: {points} points in place of {count}.").format(
                bonus=bonus_sentence(arr.bonus), points=arr.score, count=arr.per_set_points
            )
        )
    else:
        lines.append("  " + _("Sets: {points} points.").format(points=arr.per_set_points))
    return "\n".join(lines)
