"""The quality gate's rule: does one finished execution pass, for a CI pipeline to go on?

An execution passes when both hold:

- its *unresolved* failures (failed results no applying mark covers, `analytics.marks`) are at
  most `max_unresolved` (0 by default): a known failure never fails the gate;
- when `min_pass_rate` is given, its pass rate *without known failures* (passed out of its
  verdicts once known failures are left out, `marks.KnownSplit`) is at least that share.

An execution in which nothing had a verdict (every result stopped or waiting) fails: nothing
was shown to work. Whether the execution is finished is the caller's business (the gate waits
for it); the rule judges the counts and results it is given, and `missing_evidence` (the one
completeness rule, `analytics.evidence`, which the history store's fetches apply too) says
whether those results hold everything the counts do (the gate judges only when they do).

A mark lets a failure through the gate, so only a well-formed one counts: a kind its target
takes (`columns.marks.KINDS_FOR`; anything else is a mark this program does not understand),
and, when the rules ask for it, an author and an expiry. The verdict names every mark it
applied, so a CI log shows who let which failures through, under which ticket, until when.

Each failure is also given its one triage verdict (`analytics.triage.failure_verdicts`, the
label every page, the digest and the alerts read), and the verdict line counts by it
("3 unresolved; 17 in a likely outage, 2 known"). Which failures the gate lets through:

- a failure a usable mark covers (a known issue, an accepted failure, or an outage mark that
  confirms its execution is an outage): the #35 rule, unchanged;
- never one labelled *incomplete* (the evidence is short, or a mark this program cannot read
  names it), whatever else covers it;
- every other label fails: *unresolved*, *new*, *broken*, *environment-specific*, *flaky* and
  *recovering* (the build under judgement did fail; that the scenario flips or passed
  elsewhere since is no sign this build works), and a *likely* outage no mark confirms (a night
  the grid was down shows nothing works: run it again, or confirm the outage with a mark, which
  is then named in the log).

So labels only word what fails; what passes is decided by marks, as before, each one named.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dashboard.analytics import marks as mark_rules
from dashboard.analytics import triage
from dashboard.analytics.evidence import missing_evidence as missing_evidence
from dashboard.analytics.outcomes import FAIL, level_outcomes

APPLIED_COLUMNS = ("mark_id", "kind", "created_by", "ticket", "expires_on", "failures")
"""What the verdict says of each mark it applied: who made it, its ticket, its last day, and
how many of the execution's failures it covered."""

LINE_UNRESOLVED = "unresolved"
LINE_OUTAGE = "in a likely outage"
LINE_INCOMPLETE = "incomplete"
LINE_KNOWN = "known"
LINE_OUTAGE_LET_THROUGH = "of them let through by a mark"

UNKNOWN_KIND = "malformed"
UNSIGNED = "without an author"
UNENDING = "without an expiry"


@dataclass(frozen=True)
class GateRules:
    max_unresolved: int = 0
    min_pass_rate: float | None = None  # a share in [0, 1], or None: not checked
    signed_marks_only: bool = False  # a mark without an author (created_by) is not used
    require_mark_expiry: bool = False  # a mark without an expiry is not used

    def __post_init__(self) -> None:
        if self.max_unresolved < 0:
            raise ValueError("max_unresolved must be 0 or more")
        if self.min_pass_rate is not None and not 0 <= self.min_pass_rate <= 1:
            raise ValueError("min_pass_rate is a share between 0 and 1")


@dataclass(frozen=True)
class GateVerdict:
    passed: bool
    split: mark_rules.KnownSplit
    unresolved: pd.DataFrame = field(repr=False)
    """The unresolved failed results (the result columns given), in scenario order."""
    reasons: tuple[str, ...]
    """Why it failed, one short clause each (empty when it passed)."""
    applied: pd.DataFrame = field(repr=False)
    """The marks that made failures known (APPLIED_COLUMNS), in mark id order."""
    ignored: dict[str, int] = field(default_factory=dict)
    """Marks that would apply but were not used, counted by why (UNKNOWN_KIND, UNSIGNED,
    UNENDING); a mark is counted under the first of these that holds."""
    verdicts: pd.DataFrame | None = field(default=None, repr=False)
    """The triage verdict of each failed result (`triage.TRIAGE_COLUMNS`) plus `let_through`
    (whether the gate let it through)."""

    @property
    def line_counts(self) -> dict[str, int]:
        """The failures by what the verdict line calls them, by their one label: LINE_UNRESOLVED
        (every label that fails but the two below, not let through), LINE_OUTAGE (labelled
        outage, of which LINE_OUTAGE_LET_THROUGH a mark lets through), LINE_INCOMPLETE, and
        LINE_KNOWN (let through by a mark, outside an outage)."""
        return line_counts(self.verdicts, self.split)

    @property
    def unresolved_labels(self) -> dict[str, int]:
        """The labels of the failures counted unresolved on the line, in PRECEDENCE order."""
        frame = self.verdicts
        if frame is None or frame.empty:
            return {}
        held = frame[~frame["let_through"] & ~frame["label"].isin(_APART)]
        counts = triage.label_counts(held)
        return {label: n for label, n in counts.items() if n}

    @property
    def pass_rate(self) -> float | None:
        return self.split.pass_rate_without_known


_APART = (triage.OUTAGE, triage.INCOMPLETE)
"""Labels the verdict line counts on their own when the gate does not let them through."""


def gate_verdict(
    *,
    passed: int,
    verdicts: int,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    now: object,
    rules: GateRules,
    executions: pd.DataFrame | None = None,
    history: pd.DataFrame | None = None,
) -> GateVerdict:
    """The verdict on one execution: its counts (`passed` of `verdicts`, as its summary says),
    its `results` (the columns `marks.covering_marks` reads, plus result_id and start) and the
    company's `marks` (every one: those that apply at `now` and that `rules` accept are used).

    `executions`: the execution's row (EXECUTION_COLUMNS; by default one made of the counts and
    `results`), and any earlier ones of `history`, the results its triage labels read back
    from (by default none: the labels that need earlier runs then read unresolved)."""
    failed_mask = (level_outcomes(results["level"]) == FAIL).to_numpy()
    usable, ignored = gate_marks(marks, now, rules)
    if usable.empty or not failed_mask.any():
        covering = pd.Series(None, index=results.index, dtype="str")
    else:
        covering = mark_rules.covering_marks(results, usable)["mark_id"]
    labels = _triage(results, executions, history, marks, usable, now, verdicts)
    judged = results.assign(label=labels.to_numpy())
    covering = covering.where(judged["label"] != triage.INCOMPLETE)  # never a pass
    known_mask = covering.notna().to_numpy() & failed_mask
    failed = int(failed_mask.sum())
    split = mark_rules.KnownSplit(
        failed=failed, known=int(known_mask.sum()), passed=passed, verdicts=verdicts
    )
    unresolved = results[failed_mask & ~known_mask].sort_values(
        ["scenario_id", "result_id"], kind="stable"
    )
    reasons: list[str] = []
    if verdicts == 0:
        reasons.append("no result had a verdict")
    if split.unresolved > rules.max_unresolved:
        held = judged[failed_mask & ~known_mask]["label"]
        apart = [
            f"{int((held == label).sum())} {word}"
            for label, word in ((triage.OUTAGE, LINE_OUTAGE), (triage.INCOMPLETE, LINE_INCOMPLETE))
            if (held == label).any()
        ]
        plural = "s" if split.unresolved != 1 else ""
        if apart:
            rest = split.unresolved - sum(int((held == label).sum()) for label in _APART)
            said = f"{split.unresolved} failure{plural} no mark lets through ({rest} unresolved, "
            said += ", ".join(apart) + ")"
        else:
            said = f"{split.unresolved} unresolved failure{plural}"
        reasons.append(f"{said} (at most {rules.max_unresolved} allowed)")
    rate = split.pass_rate_without_known
    floor = rules.min_pass_rate
    if floor is not None and verdicts > 0 and (rate is None or rate < floor - 1e-12):
        shown = "-" if rate is None else f"{rate:.2%}"
        reasons.append(f"pass rate {shown} without known failures (at least {floor:.2%} needed)")
    return GateVerdict(
        passed=not reasons,
        split=split,
        unresolved=unresolved,
        reasons=tuple(reasons),
        applied=_applied(usable, covering[known_mask]),
        ignored=ignored,
        verdicts=judged[failed_mask].assign(let_through=known_mask[failed_mask]),
    )


def line_counts(frame: pd.DataFrame | None, split: mark_rules.KnownSplit) -> dict[str, int]:
    """`GateVerdict.line_counts` of a verdicts frame with `let_through`."""
    if frame is None or frame.empty:
        return {
            LINE_UNRESOLVED: split.unresolved,
            LINE_OUTAGE: 0,
            LINE_OUTAGE_LET_THROUGH: 0,
            LINE_INCOMPLETE: 0,
            LINE_KNOWN: split.known,
        }
    # Counted by label, as every page counts them: a failure in an outage is counted there even
    # when a mark lets it through (the line says how many were), never as known.
    held = frame[~frame["let_through"]]
    in_outage = (frame["label"] == triage.OUTAGE).to_numpy(dtype=bool)
    let_through = frame["let_through"].to_numpy(dtype=bool)
    outage_held = int((held["label"] == triage.OUTAGE).sum())
    incomplete = int((held["label"] == triage.INCOMPLETE).sum())
    return {
        LINE_UNRESOLVED: len(held) - outage_held - incomplete,
        LINE_OUTAGE: int(in_outage.sum()),
        LINE_OUTAGE_LET_THROUGH: int((in_outage & let_through).sum()),
        LINE_INCOMPLETE: incomplete,
        LINE_KNOWN: int((let_through & ~in_outage).sum()),
    }


def _triage(
    results: pd.DataFrame,
    executions: pd.DataFrame | None,
    history: pd.DataFrame | None,
    marks: pd.DataFrame,
    usable: pd.DataFrame,
    now: object,
    verdicts: int,
) -> pd.Series:
    """The triage label of each of `results` (missing where it is not a failure), by the
    marks the gate may use plus the malformed ones (which make the failures they name
    incomplete: never a pass)."""
    none = pd.Series(None, index=results.index, dtype="str")
    if results.empty:
        return none
    ids = sorted({int(e) for e in results["execution_id"].dropna()})
    if executions is None:
        executions = _executions_of(results, verdicts)
    executions = executions[list(_EXECUTION_NEEDS)]
    if history is not None:
        # An execution of the history given without its row (the history store keeps the
        # results of executions it may not list) is counted from its results.
        unlisted = history[~history["execution_id"].isin(executions["execution_id"])]
        if not unlisted.empty:
            counted = _executions_of(unlisted, None)
            executions = pd.concat([executions, counted], ignore_index=True)
            executions["start"] = pd.to_datetime(executions["start"], utc=True)
    every = results if history is None else pd.concat([history, results], ignore_index=True)
    every = every.drop_duplicates("result_id", keep="last")
    malformed = marks[~mark_rules.well_formed(marks)] if not marks.empty else marks
    shown = usable
    if not malformed.empty:
        shown = pd.concat([usable.reindex(columns=marks.columns), malformed], ignore_index=True)
    found = triage.failure_verdicts(every, executions, shown, now=now, judged=ids)
    by_result = found.dropna(subset=["result_id"]).drop_duplicates("result_id")
    labels = results["result_id"].map(by_result.set_index("result_id")["label"])
    return labels.astype("object").where(labels.notna(), None)


_EXECUTION_NEEDS = ("execution_id", "start", "plan_id", "finished", "verdicts", "failed")
"""What the triage reads of an execution."""


def _executions_of(results: pd.DataFrame, verdicts: int | None) -> pd.DataFrame:
    """The executions of `results` as the triage reads them: finished (a stored or judged
    execution's results are whole), with `verdicts` when given (one execution) or counted from
    the results."""
    outcomes = level_outcomes(results["level"])
    by = results["execution_id"].astype("int64")
    failed = (outcomes == FAIL).groupby(by).sum()
    counted = outcomes.notna().groupby(by).sum()
    starts = pd.to_datetime(results.groupby(by)["start"].min(), utc=True)
    plans = results.groupby(by)["plan_id"].first()
    one = len(failed) == 1 and verdicts is not None
    return pd.DataFrame(
        {
            "execution_id": failed.index.to_numpy(dtype="int64"),
            "start": starts.reindex(failed.index).to_numpy(),
            "plan_id": plans.reindex(failed.index).astype("Int64").to_numpy(),
            "finished": True,
            "verdicts": [verdicts] if one else counted.to_numpy(dtype="int64"),
            "failed": failed.to_numpy(dtype="int64"),
        }
    )


def gate_marks(
    marks: pd.DataFrame, now: object, rules: GateRules
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The marks the gate may use at `now` (MARK_COLUMNS), and how many that apply it leaves
    out, by why."""
    # A mark the program does not understand (an unknown kind, a kind its target does not take,
    # a field its target needs missing) must not let a failure through: `applying` leaves such
    # marks out (`marks.well_formed`, the one rule); they are counted here, to be said.
    malformed = int((~mark_rules.well_formed(marks)).sum()) if not marks.empty else 0
    ignored: dict[str, int] = {UNKNOWN_KIND: malformed} if malformed else {}
    applying = mark_rules.applying(marks, now)
    if applying.empty:
        return applying, ignored
    signed = applying["created_by"].fillna("").astype(str).str.strip() != ""
    ending = applying["expires_on"].notna()
    checks: list[tuple[str, pd.Series]] = []
    if rules.signed_marks_only:
        checks.append((UNSIGNED, signed))
    if rules.require_mark_expiry:
        checks.append((UNENDING, ending))
    keep = pd.Series(True, index=applying.index)
    for why, passes in checks:
        dropped = int((keep & ~passes).sum())
        if dropped:
            ignored[why] = dropped
        keep &= passes
    return applying[keep.to_numpy()], ignored


def _applied(usable: pd.DataFrame, covering: pd.Series) -> pd.DataFrame:
    counts = covering.value_counts()
    chosen = usable[usable["mark_id"].isin(counts.index)].sort_values("mark_id", kind="stable")
    return pd.DataFrame(
        {
            "mark_id": chosen["mark_id"].to_numpy(),
            "kind": chosen["kind"].to_numpy(),
            "created_by": chosen["created_by"].to_numpy(),
            "ticket": chosen["ticket"].to_numpy(),
            "expires_on": chosen["expires_on"].to_numpy(),
            "failures": [int(counts[m]) for m in chosen["mark_id"]],
        },
        columns=list(APPLIED_COLUMNS),
    )
