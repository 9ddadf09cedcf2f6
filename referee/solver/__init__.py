"""Best-move solver: the most rack tiles (or points) a player can lay (RULES.md sections 2, 4, 5).

:func:`best_move` answers "what is the best I can do with this rack on this table?" and returns the
whole new table, the rack tiles it uses and the steps to get there from the table as it lies;
:func:`arrange` answers "can these tiles be arranged into valid sets?" for a bare multiset (used
when a photo's set boundaries are unclear).

Method (chosen by measurement, see ``referee/SOLVER.md``): an exact dynamic programme over the
numbers 1-13, after van Rijn, Takes and Vis (2015). Walking up the numbers, the state is, per
colour, the multiset of runs still open (length 1, 2 or "3 or more", plus runs so far made only of
jokers), the jokers placed so far and, inside one number, what the groups of that number need.
Every table tile must be used; rack tiles may be; a run of length 1 or 2 must go on. The colours
of one number are handled one after the other ("profile" DP), so a number costs states x options,
never options to the fourth power. The tiles objective is searched depth first on that
programme's states, branch and bound: a first plan, then on from there to plans leaving out
fewer rack tiles than the last, until the options run out (or past a step budget the
breadth-first programme pruned to the next target settles it). What makes the search short: a
relaxed bound per colour (runs exact, groups only counted) orders and prunes the joker-free
searches; with jokers, the fewest jokers each colour still needs prunes them, at every choice;
and a choice is dropped as soon as its number's groups would need more jokers than are left.
A plan laying every usable tile then gets a short branch and bound for one that keeps more of
the table as it lies.

Jokers follow RULES.md section 5 as the rule books allow them: a joker may stand anywhere in a run
or a group (a group of 4, either end of a run, two jokers in one set); a set of only jokers is not
a set; jokers already on the table may move to any set but never leave the table. A run with
leading jokers that does not reach 13 can always shift its leading jokers to its other end
(same tiles, same validity, worth at least as much), so the programme only starts runs with a
joker where the run can still reach 13; no optimum is lost.

Points (``objective="points"``): a joker is worth the tile it stands for, read as the referee
reads the set (the reading worth most). Solved first with lean jokers, spare rack jokers counted
at 13 (an upper bound), then spare jokers laid where they are worth most (a move, a floor); when
the two meet the move is optimal, otherwise a programme allowing every useful joker place (in
a set that needs it, at the top of a run, fourth in a group, leading a run that ends at 13)
looks for better within a budget (``Move.proven`` says if it finished).

Ties are broken towards the move that disturbs the table least (an estimate kept in the programme:
old run joints kept, weighted by how many tiles a break there would move, and old group places
kept), then towards more points (or more tiles when points are the objective): exactly by the
breadth-first programme (points objective), within a step budget by the depth-first searches
(their option order, and the branch and bound on plans meeting the bound). The reported
``moved`` tiles and the ``steps`` are computed exactly from the arrangement found, each new set
matched to at most one old set so that most table tiles stay in their set (a best matching).
How far that is from the least an optimal move could move is measured exactly, on the
benchmark, by :mod:`referee.tools.tiebreak_check` (figures in ``referee/SOLVER.md``).

Layout (one job per module; names the modules share are public names of their module, the
package's own API is what this module exports in ``__all__``):

- :mod:`.api`: :func:`best_move`, :func:`arrange`, :class:`Move`, the opening, the exact tie-break call;
- :mod:`.passes`: which searches settle a position, in which order, with which budgets;
- :mod:`.programme`: one solve's programme (counts, prefilter, tie-break weights, cells);
- :mod:`.depth`, :mod:`.breadth`, :mod:`.bounds`: the depth-first searches, the breadth-first
  programme, the relaxed bound and joker needs (mixins of the programme);
- :mod:`.options`: every way one colour goes on at one number, and the shared tables;
- :mod:`.state`: the state and score packed in ints, run-state ids, plans;
- :mod:`.build`, :mod:`.steps`, :mod:`.values`: the new sets from a plan, the matching to old sets
  and the steps, joker values;
- :mod:`.inputs`: tiles and tables read and checked;
- :mod:`.least`: the exact least disturbance (integer programme on HiGHS through highspy, imported on first use).
"""

from __future__ import annotations

from referee.solver.api import OBJECTIVES, TIEBREAKS, Move, arrange, best_move
from referee.solver.inputs import SolverError, TableInput

__all__ = ["Move", "SolverError", "best_move", "arrange", "OBJECTIVES", "TIEBREAKS", "TableInput"]
