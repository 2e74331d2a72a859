"""`python -m dashboard verdicts --evaluate`: how often the triage verdict is right, measured.

    python -m dashboard verdicts --evaluate [--format text|json]

It starts the embedded demo sandbox (whatever service is configured: the evaluation needs the
demo's planted history), reads every execution of company 1 and every result of them through
the dashboard's own loaders (`data.live`, `data.results_fanout`, no store), gives each failed
result its one verdict (`analytics.triage.failure_verdicts`, the default state rules, at the
demo's "now", with the planted marks applied: a known one, and one it cannot read) and
compares it with the label planted there (`sandbox.data.ground_truth`). Per label: how many
failed results were planted with it, how many the verdict gave it, how many of those agree,
precision (correct / labelled) and recall (correct / planted); a dash where there is nothing
to divide by (no case is planted for `unresolved`).

Exit codes: 0 measured (whatever the figures); 2 bad usage, or a demo too large to hold the
evaluation's cases (`QA_DASHBOARD_DEMO_EXECUTIONS` of 20,000 or more); 3 the demo sandbox did
not answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dashboard.cli.common import SERVICE, USAGE, Args, CliError, Parsed, demo_connection, parsed

if TYPE_CHECKING:
    import pandas as pd

    from api_client import ApiClient
    from dashboard.data.connection import Connection

TEXT, JSON = "text", "json"
FORMATS = (TEXT, JSON)
COLUMNS = ("label", "planted", "labelled", "correct", "precision", "recall")


def _format(text: str) -> str:
    value = text.strip().lower()
    if value not in FORMATS:
        raise typer.BadParameter(f"the format is text or json, got {text!r}")
    return value


def verdicts_command(
    ctx: typer.Context,
    evaluate: Annotated[
        bool,
        typer.Option(
            "--evaluate",
            help="measure the triage verdict on the demo's planted history: precision and "
            "recall per label",
        ),
    ] = False,
    output: Annotated[
        str,
        typer.Option(
            "--format", parser=_format, metavar="text|json", help="a table, or JSON for machines"
        ),
    ] = TEXT,
) -> Parsed:
    """The triage verdict (one label per failed result), measured against the demo's planted
    history with --evaluate."""
    return parsed(ctx, run)


@dataclass(frozen=True)
class LabelScore:
    label: str
    planted: int
    labelled: int
    correct: int
    precision: float | None  # correct / labelled; None when nothing was labelled so
    recall: float | None  # correct / planted; None when nothing was planted so


@dataclass(frozen=True)
class Miss:
    """A failed result whose verdict is not its planted label."""

    execution_id: int
    plan_id: int
    scenario_id: int
    environment_id: int
    planted: str | None
    labelled: str


@dataclass(frozen=True)
class Evaluation:
    now: datetime
    executions: int  # company 1's executions judged
    failed_results: int  # their verdict rows
    scores: tuple[LabelScore, ...]  # one per label of the triage's PRECEDENCE, in its order
    misses: tuple[Miss, ...]


def run(args: Args, env: Mapping[str, str]) -> int:
    if not args.evaluate:
        raise CliError(
            "nothing to do: verdicts has one action for now, --evaluate (precision and recall "
            "of the triage verdict on the demo's planted history)",
            USAGE,
        )
    _check_demo_size(env)
    from api_client import ApiError  # lazy: the client loads pydantic and httpx

    with demo_connection(env=env) as connection:
        from dashboard.cli.common import client_for

        try:
            with client_for(connection) as client:
                evaluation = evaluate_demo(client, connection)
        except ApiError as error:
            from dashboard.cli.common import service_problem

            raise CliError(service_problem(error, connection), SERVICE) from None
    print(as_json(evaluation) if args.output == JSON else as_table(evaluation))
    return 0


def _check_demo_size(env: Mapping[str, str]) -> None:
    from dashboard.data import demo
    from sandbox.data import planted, scale

    try:
        size = demo.demo_executions(env) or demo.DEFAULT_DEMO_EXECUTIONS
    except ValueError as error:
        raise CliError(str(error), USAGE) from None
    if not planted.evaluation_cases_active(size, 90, scale.is_active(size, 90)):
        raise CliError(
            f"a demo of {size:,} executions does not hold the evaluation's planted cases "
            f"(an outage night, a broken scenario): unset {demo.ENV_DEMO_EXECUTIONS} or make "
            f"it at least {planted.MIN_EXECUTIONS:,} and below {scale.MIN_EXECUTIONS:,}",
            USAGE,
        )


def evaluate_demo(client: ApiClient, connection: Connection) -> Evaluation:
    """Every execution of the demo's company and all their results, judged and compared."""
    from dashboard.data import live, results_fanout
    from dashboard.data.pairs import result_pairs

    executions = live.load_executions(client).executions
    plans = live.load_plans(client, active_only=False).plans
    pairs, finished = result_pairs(executions, plans, executions["execution_id"].tolist())
    fanout = results_fanout.fetch_results(client, pairs, finished=finished, store=None)
    now = connection.clock
    assert now is not None, "the demo's connection carries its clock"
    return evaluation_of(executions, fanout.results, now)


def planted_marks(
    results: pd.DataFrame, now: datetime, unreadable_on: int | None = None
) -> pd.DataFrame:
    """The ground truth's marks as the ledger would hold them: `ground_truth.KNOWN_MARK`, its
    environment named as the pages name it (from `results`, which hold that environment), and
    `ground_truth.UNREADABLE_MARK` on the execution `unreadable_on` (none when None)."""
    import pandas as pd

    from dashboard.analytics.environment_names import with_environments
    from dashboard.columns import marks as mark_columns
    from dashboard.columns.shapes import typed_rows
    from sandbox.data.ground_truth import KNOWN_MARK, UNREADABLE_MARK

    on = results[results["environment_id"] == KNOWN_MARK.environment_id]
    label = str(with_environments(on.head(1))["environment"].astype("str").iloc[0])
    made = pd.Timestamp(now) - timedelta(days=KNOWN_MARK.created_days_before_now)
    row: dict[str, Any] = {
        "mark_id": KNOWN_MARK.mark_id,
        "company_id": 1,
        "target": mark_columns.SCENARIO_ENVIRONMENT,
        "signature": None,
        "plan_id": KNOWN_MARK.plan_id,
        "scenario_id": KNOWN_MARK.scenario_id,
        "environment": label,
        "execution_id": None,
        "kind": mark_columns.KNOWN_ISSUE,
        "ticket": KNOWN_MARK.ticket,
        "note": KNOWN_MARK.note,
        "owner": KNOWN_MARK.owner,
        "expires_on": None,
        "created_by": KNOWN_MARK.owner,
        "created_at": made,
        "updated_at": made,
        "closed_by": None,
        "closed_at": None,
        "revision": 1,
    }
    rows = [row]
    if unreadable_on is not None:
        made = pd.Timestamp(now) - timedelta(days=UNREADABLE_MARK.created_days_before_now)
        rows.append(
            {
                **row,
                "mark_id": UNREADABLE_MARK.mark_id,
                "target": mark_columns.EXECUTION,
                "plan_id": UNREADABLE_MARK.plan_id,
                "scenario_id": None,
                "environment": None,
                "execution_id": unreadable_on,
                "kind": UNREADABLE_MARK.kind,
                "ticket": UNREADABLE_MARK.ticket,
                "note": UNREADABLE_MARK.note,
                "owner": UNREADABLE_MARK.owner,
                "created_by": UNREADABLE_MARK.owner,
                "created_at": made,
                "updated_at": made,
            }
        )
    return typed_rows(rows, mark_columns.MARK_COLUMNS)


def evaluation_of(executions: pd.DataFrame, results: pd.DataFrame, now: datetime) -> Evaluation:
    """The verdicts of every execution of `executions` (all of one company) compared with the
    planted labels: the measurement, from frames (`EXECUTION_COLUMNS`,
    `RESULT_HISTORY_COLUMNS`)."""
    import pandas as pd

    from dashboard.analytics.triage import PRECEDENCE, failure_verdicts
    from sandbox.data import ground_truth

    listed = [
        ground_truth.Execution(int(i), int(p), int(pd.Timestamp(s).timestamp() * 1000))
        for i, p, s in zip(
            executions["execution_id"], executions["plan_id"], executions["start"], strict=True
        )
        if pd.notna(p) and pd.notna(s)
    ]
    marks = planted_marks(results, now, ground_truth.unreadable_mark_target(listed))
    verdicts = failure_verdicts(
        results,
        executions,
        marks,
        now=pd.Timestamp(now),
        judged=executions["execution_id"].astype("int64").tolist(),
    )
    rules = ground_truth.rules(listed, int(pd.Timestamp(now).timestamp() * 1000))
    environment_of = dict(
        zip(results["result_id"].astype("int64"), results["environment_id"], strict=True)
    )

    pairs: list[tuple[str | None, str]] = []  # (planted, labelled) per verdict row
    misses: list[Miss] = []
    for row in verdicts.to_dict("records"):
        result_id, environment = row["result_id"], None
        if pd.notna(result_id):
            environment = environment_of.get(int(result_id))
        planted = None
        if pd.notna(row["plan_id"]) and pd.notna(row["scenario_id"]) and pd.notna(environment):
            planted = ground_truth.label_of(
                rules,
                int(row["plan_id"]),
                int(row["execution_id"]),
                int(row["scenario_id"]),
                _int(environment),
            )
        pairs.append((planted, str(row["label"])))
        if planted != row["label"]:
            misses.append(
                Miss(
                    int(row["execution_id"]),
                    _int(row["plan_id"]),
                    _int(row["scenario_id"]),
                    _int(environment),
                    planted,
                    str(row["label"]),
                )
            )
    scores = tuple(_score(label, pairs) for label in PRECEDENCE)
    return Evaluation(
        now=now,
        executions=len(executions),
        failed_results=len(verdicts),
        scores=scores,
        misses=tuple(misses),
    )


def _int(value: object) -> int:
    import pandas as pd

    return -1 if value is None or bool(pd.isna(value)) else int(str(value))


def _score(label: str, pairs: list[tuple[str | None, str]]) -> LabelScore:
    planted = sum(1 for truth, _ in pairs if truth == label)
    labelled = sum(1 for _, given in pairs if given == label)
    correct = sum(1 for truth, given in pairs if truth == given == label)
    return LabelScore(
        label=label,
        planted=planted,
        labelled=labelled,
        correct=correct,
        precision=correct / labelled if labelled else None,
        recall=correct / planted if planted else None,
    )


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def as_table(evaluation: Evaluation) -> str:
    """The scores as a Markdown table (README carries it), with what it was measured on."""
    lines = [
        f"Triage verdicts on the demo's planted history: {evaluation.failed_results} failed "
        f"results of {evaluation.executions} executions of company 1, at "
        f"{evaluation.now:%Y-%m-%d %H:%M} UTC.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join(["---", *["---:"] * (len(COLUMNS) - 1)]) + "|",
    ]
    for score in evaluation.scores:
        cells = [
            score.label,
            str(score.planted),
            str(score.labelled),
            str(score.correct),
            _ratio(score.precision),
            _ratio(score.recall),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if evaluation.misses:
        lines.append(f"{len(evaluation.misses)} failed results got another label than planted:")
        for miss in evaluation.misses:
            lines.append(
                f"- execution {miss.execution_id}, plan {miss.plan_id}, scenario "
                f"{miss.scenario_id}, environment {miss.environment_id}: planted "
                f"{miss.planted or 'nothing'}, labelled {miss.labelled}"
            )
    else:
        lines.append("Every failed result got its planted label.")
    return "\n".join(lines)


def as_json(evaluation: Evaluation) -> str:
    return json.dumps(
        {
            "now": evaluation.now.isoformat(),
            "executions": evaluation.executions,
            "failed_results": evaluation.failed_results,
            "labels": [asdict(score) for score in evaluation.scores],
            "misses": [asdict(miss) for miss in evaluation.misses],
        },
        indent=2,
    )
