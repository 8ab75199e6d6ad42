"""The test vectors of seed 001 (the PSZ text), as data.

Reading of the original (``/work/shared/seeds/001_f2fb6bc01c0bdbec.txt``):
players A-C played in the first (upper) Paarkreuz, D-F in the second, G-I in
the third; J played in all three: 1-1, 2-2 and 2-2 (the "+ -" columns are
wins and losses per Paarkreuz). Every player of a Paarkreuz met opponents of
the same strength, given per table:

* Table 1 ("Beispielbilanz", LPZ beside PSZ): the normal case, opponents at the
  LPZ of a 50 % record in league KKB: 270 / 250 / 230.
* Tables 2 and 3: the first Paarkreuz is stronger (opponents 320, own players
  270), the third weaker (opponents 180, own players 230), the middle one as
  before (250 against 250). Table 2 is computed without the zero bound,
  table 3 with it.

Starting values: the own players' PSZ are 270 (A-C), 250 (D-F) and 230 (G-I);
J starts at 230 (the text's game-by-game example: "Spieler J, der eine PSZ von
230 hat"). In table 1 every DIFF of A-I is 0 and J's bounded and unbounded
points agree, so the tables are reproduced by the period update as well.
"""

from __future__ import annotations

from dataclasses import dataclass

KB = 250  # Klassenbonus of league KKB
PAIRS = ("upper", "middle", "lower")

#: Wins and losses per Paarkreuz (upper, middle, lower).
RECORDS: dict[str, tuple[tuple[int, int], ...]] = {
    "A": ((4, 0), (0, 0), (0, 0)),
    "B": ((2, 2), (0, 0), (0, 0)),
    "C": ((0, 4), (0, 0), (0, 0)),
    "D": ((0, 0), (4, 0), (0, 0)),
    "E": ((0, 0), (2, 2), (0, 0)),
    "F": ((0, 0), (0, 4), (0, 0)),
    "G": ((0, 0), (0, 0), (4, 0)),
    "H": ((0, 0), (0, 0), (2, 2)),
    "I": ((0, 0), (0, 0), (0, 4)),
    "J": ((1, 1), (2, 2), (2, 2)),
}

#: Starting PSZ of the own players.
START = {
    "A": 270, "B": 270, "C": 270, "D": 250, "E": 250, "F": 250,
    "G": 230, "H": 230, "I": 230, "J": 230,
}


@dataclass(frozen=True)
class Row:
    """One player's line of a table, as printed."""

    s_minus_n: int
    times_40: int
    su_pszg: int  # opponents' PSZ summed (table 3: the effective sum, see there)
    total: int  # the column after SuPSZG: x40 + SuPSZG
    psz: int


# Table 1, PSZ part: "+ -", Pu. = (S-N) x 40 / AS, SuPSZG/AS, PSZ; LPZ part:
# Pu. (weighted points x HF), KB, LPZ.
TABLE1_OPPONENTS = (270, 250, 230)
TABLE1 = {
    #     LPZ Pu.  LPZ   PSZ Pu.  SuPSZG/AS  PSZ
    "A": (60, 310, 40, 270, 310),
    "B": (20, 270, 0, 270, 270),
    "C": (-20, 230, -40, 270, 230),
    "D": (40, 290, 40, 250, 290),
    "E": (0, 250, 0, 250, 250),
    "F": (-40, 210, -40, 250, 210),
    "G": (20, 270, 40, 230, 270),
    "H": (-20, 230, 0, 230, 230),
    "I": (-60, 190, -40, 230, 190),
    "J": (-4, 246, 0, 246, 246),
}

#: Table 1 in the second (batch) layout: S-N, x40, SuPSZG, sum, PSZ.
TABLE1_BATCH = {
    "A": Row(4, 160, 1080, 1240, 310),
    "B": Row(0, 0, 1080, 1080, 270),
    "C": Row(-4, -160, 1080, 920, 230),
    "D": Row(4, 160, 1000, 1160, 290),
    "E": Row(0, 0, 1000, 1000, 250),
    "F": Row(-4, -160, 1000, 840, 210),
    "G": Row(4, 160, 920, 1080, 270),
    "H": Row(0, 0, 920, 920, 230),
    "I": Row(-4, -160, 920, 760, 190),
    "J": Row(0, 0, 2460, 2460, 246),
}

STRONG_WEAK_OPPONENTS = (320, 250, 180)

#: Table 2: "zunächst ohne Begrenzung auf Null".
TABLE2_UNBOUNDED = {
    "A": Row(4, 160, 1280, 1440, 360),
    "B": Row(0, 0, 1280, 1280, 320),
    "C": Row(-4, -160, 1280, 1120, 280),
    "D": Row(4, 160, 1000, 1160, 290),
    "E": Row(0, 0, 1000, 1000, 250),
    "F": Row(-4, -160, 1000, 840, 210),
    "G": Row(4, 160, 720, 880, 220),
    "H": Row(0, 0, 720, 720, 180),
    "I": Row(-4, -160, 720, 560, 140),
    "J": Row(0, 0, 2360, 2360, 236),
}

#: Table 3: "bei einer Begrenzung auf Null". Here SuPSZG is the effective sum
#: that the bounded points imply: AS x PSZ - (S-N) x 40.
TABLE3_BOUNDED = {
    "A": Row(4, 160, 1280, 1440, 360),
    "B": Row(0, 0, 1260, 1260, 315),
    "C": Row(-4, -160, 1240, 1080, 270),
    "D": Row(4, 160, 1000, 1160, 290),
    "E": Row(0, 0, 1000, 1000, 250),
    "F": Row(-4, -160, 1000, 840, 210),
    "G": Row(4, 160, 760, 920, 230),
    "H": Row(0, 0, 740, 740, 185),
    "I": Row(-4, -160, 720, 560, 140),
    "J": Row(0, 0, 2330, 2330, 233),
}


@dataclass(frozen=True)
class JGame:
    """One line of J's game-by-game table (PSZ 230 before the period)."""

    pszg: int
    diff: int
    won: bool
    points: int
    psz: int  # PSZ after this game alone (AS = 1)
    lpzg: int
    lpz_diff: int
    lpz_points: int
    lpz: int


J_START = 230
J_GAMES = (
    JGame(320, 90, True, 130, 360, 270, 40, 80, 310),
    JGame(320, 90, False, 0, 230, 270, 40, 0, 230),
    JGame(250, 20, True, 60, 290, 250, 20, 60, 290),
    JGame(250, 20, True, 60, 290, 250, 20, 60, 290),
    JGame(250, 20, False, -20, 210, 250, 20, -20, 210),
    JGame(250, 20, False, -20, 210, 250, 20, -20, 210),
    JGame(180, -50, True, 0, 230, 230, 0, 40, 270),
    JGame(180, -50, True, 0, 230, 230, 0, 40, 270),
    JGame(180, -50, False, -90, 140, 230, 0, -40, 190),
    JGame(180, -50, False, -90, 140, 230, 0, -40, 190),
)
#: "Summe" and "/10" lines: points 30 -> 3, PSZ column 2330 -> 233;
#: LPZ points 160 -> 16, LPZ column 2460 -> 246.
J_SUMS = {"points": 30, "psz": 2330, "lpz_points": 160, "lpz": 2460}
J_MEANS = {"points": 3, "psz": 233, "lpz_points": 16, "lpz": 246}
