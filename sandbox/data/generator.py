"""Builds the demo database from a seed: plans, scenarios and months of executions.

Everything is drawn from one `random.Random(seed)` in a fixed order, and nothing reads the clock,
so the same settings always give the same database. Company 2's mix is meant to look like a real
team's history: mostly green, a few scenarios broken since some day (some fixed since), flaky
ones, ones failing on one browser or OS only, ones getting slower, and a run still in progress.
Company 1 holds the planted cases instead (`planted.py`): each case exactly once, on its own
clock, and nothing else that looks like one.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from sandbox.auth import user_info_access_token
from sandbox.data import planted, scale
from sandbox.data.catalog import (
    COMPANIES,
    ENVIRONMENTS,
    PEOPLE,
    PROJECTS,
    Environment,
    Person,
    PlanOutline,
    Project,
    company_of,
    email_of,
)
from sandbox.data.outcomes import (
    MAX_ENVIRONMENTS_PER_EXECUTION,
    MAX_SCENARIOS_PER_PLAN,
    Behaviour,
    EnvironmentTraits,
    Timeline,
    derive_outcome,
    status_counts_text,
)
from sandbox.data.schema import INDEXES, TABLES
from sandbox.settings import SandboxSettings

DAY_MS = 86_400_000

# Share of executions that belong to the first company; the second gets the rest.
FIRST_COMPANY_SHARE = 0.7

# Runs that are still going at the end of the window: (company, seconds before "now").
# Four seconds is shorter than any setup time, so that run is certainly WAITING throughout.
IN_PROGRESS_RUNS = ((1, 4), (2, 4), (1, 12 * 60))

WEB_SCENARIO_NAMES = (
    "Login with valid credentials",
    "Login with wrong password",
    "Search by keyword",
    "Filter results by price",
    "Sort results by rating",
    "Add item to cart",
    "Remove item from cart",
    "Checkout as guest",
    "Checkout with saved card",
    "Apply discount code",
    "Reset password by e-mail",
    "Update profile details",
    "Change delivery address",
    "Order history pagination",
    "Download invoice PDF",
    "Newsletter sign-up",
    "Switch language",
    "Wishlist add and remove",
    "Product image zoom",
    "Cookie consent banner",
    "Two-factor login",
    "Logout from all devices",
)
MOBILE_SCENARIO_NAMES = (
    "Launch app cold start",
    "Onboarding swipe-through",
    "Login with biometrics",
    "Push notification opt-in",
    "Scan barcode",
    "Offline mode banner",
    "Sync after reconnect",
    "Rotate to landscape",
    "Deep link to product",
    "In-app purchase",
    "Camera permission prompt",
    "Dark mode rendering",
    "Background refresh",
    "Upload photo attachment",
    "Sign out and clear cache",
    "Map location pin",
    "Accessibility font scaling",
    "App update prompt",
)
JAVA_PARAMETERS = (
    (),
    ("-Dapp.locale=en_US",),
    ("-Dretry.delay=2s", "-Dpage.timeout=30"),
    ("-Dfeature.flags=new-checkout",),
)


class ScenarioKind(StrEnum):
    STABLE = "STABLE"
    BROKEN = "BROKEN"  # failing since some day, still failing
    FIXED = "FIXED"  # failed for a while, passing again
    FLAKY = "FLAKY"
    ENVIRONMENT_SPECIFIC = "ENVIRONMENT_SPECIFIC"
    SLOWING = "SLOWING"


@dataclass(frozen=True)
class _Scenario:
    id: int
    project: Project
    name: str
    kind: ScenarioKind
    behaviour: Behaviour
    failure_message: str = ""  # the template of its failures' messages ("" for the usual mix)


@dataclass(frozen=True)
class _Plan:
    id: int
    project: Project
    outline: PlanOutline
    scenarios: tuple[_Scenario, ...]
    environments: tuple[Environment, ...]
    # When the plan was in use, as fractions of the time window.
    active_from: float
    active_until: float
    # How often it is drawn for a random execution, and whether one runs on all its
    # environments (the plans added at scale, `scale.py`; the catalogue's: 1 and no).
    weight: float = 1.0
    every_environment: bool = False


def build_database(connection: sqlite3.Connection, settings: SandboxSettings) -> None:
    """(Re)creates every table in `connection` and fills it from `settings`."""
    rng = random.Random(settings.seed)
    timeline = Timeline.ending_at(settings.now, settings.days)
    at_scale = scale.is_active(settings.executions, settings.days)
    connection.executescript(TABLES)
    with connection:
        _insert_people_and_places(connection, settings.seed)
        scenarios, scale_scenarios = _insert_scenarios(connection, rng, timeline, at_scale)
        plans = _insert_plans(connection, rng, timeline, scenarios, scale_scenarios)
        delays = _setup_delays(settings, timeline, plans)
        _insert_executions(connection, rng, settings, timeline, plans, delays)
        connection.executemany(
            "INSERT INTO setup_delays VALUES (?, ?, ?)",
            [(plan_id, since, extra) for plan_id, (since, extra) in delays.items()],
        )
    connection.executescript(INDEXES)


def _setup_delays(
    settings: SandboxSettings, timeline: Timeline, plans: Sequence[_Plan]
) -> dict[int, tuple[int, int]]:
    """Plans whose executions wait longer for their devices from some moment on: plan id ->
    (from, in Unix ms; extra setup seconds). The planted slower plan, and at scale its own."""
    delays: dict[int, tuple[int, int]] = {}
    if planted.is_active(settings.executions, settings.days):
        delays[planted.SLOWER_PLAN] = (
            planted.slow_since_ms(timeline.end_ms),
            planted.SLOWER_PLAN_EXTRA_SETUP_S,
        )
    slower = scale.plan_of(scale.SLOWER).name
    for plan in plans:
        if plan.outline.name == slower and plan.project.company_id == scale.COMPANY_ID:
            delays[plan.id] = (scale.slow_since_ms(timeline.end_ms), scale.SLOWER_EXTRA_SETUP_S)
    return delays


def _insert_people_and_places(connection: sqlite3.Connection, seed: int) -> None:
    connection.executemany(
        "INSERT INTO companies VALUES (?, ?)", [(c.id, c.name) for c in COMPANIES]
    )
    connection.executemany(
        "INSERT INTO projects VALUES (?, ?, ?, ?)",
        [(p.id, p.company_id, p.name, p.enabled) for p in PROJECTS],
    )
    connection.executemany(
        "INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                person.id,
                person.company_id,
                company_of(person.company_id).name,
                person.username,
                person.name,
                person.surname,
                email_of(person),
                "ENGLISH",
                company_of(person.company_id).time_zone,
                json.dumps(person.roles),
                user_info_access_token(seed, person.username),
            )
            for person in PEOPLE
        ],
    )
    connection.executemany(
        "INSERT INTO environments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                env.id,
                env.name,
                env.operating_system,
                env.operating_system_clean_name,
                env.browser_type,
                env.environment_type,
                env.environment_version,
                env.enabled,
                env.mobile,
                env.screen_resolution,
            )
            for env in ENVIRONMENTS
        ],
    )


def _environment_choices(project: Project) -> list[Environment]:
    """Mobile projects run on devices; disabled (legacy) projects also ran on retired browsers."""
    return [
        env
        for env in ENVIRONMENTS
        if env.mobile == project.mobile and (env.enabled or not project.enabled)
    ]


def _weak_spot(rng: random.Random, project: Project) -> str:
    """The OS (mobile) or non-Chrome browser (desktop) this project's fragile scenario fails on."""
    envs = _environment_choices(project)
    if project.mobile:
        return rng.choice(sorted({env.operating_system for env in envs}))
    return rng.choice(sorted({env.browser_type for env in envs} - {"CHROME"}))


def _stable(rng: random.Random, project: Project, noise: float = 0.0) -> Behaviour:
    """A scenario that passes (but for a `noise` chance to fail) at a runtime drawn for its
    project: longer on mobile."""
    base = rng.uniform(40, 300) if project.mobile else rng.uniform(20, 240)
    return Behaviour(
        base_runtime_s=round(base, 1),
        fail_rate=noise,
        focus_fail_rate=0.0,
        fail_from=0.0,
        fail_until=0.0,
        fails_on="",
        slowdown=0.0,
    )


def _behaviour(
    rng: random.Random, kind: ScenarioKind, project: Project, noise: float = 0.01
) -> Behaviour:
    """A company-2 scenario of `kind`; `noise` is a stable one's chance to fail anyway."""
    stable = _stable(rng, project, noise)
    match kind:
        case ScenarioKind.STABLE:
            return stable
        case ScenarioKind.BROKEN:
            return replace(
                stable, focus_fail_rate=0.95, fail_from=rng.uniform(0.3, 0.85), fail_until=2.0
            )
        case ScenarioKind.FIXED:
            start = rng.uniform(0.15, 0.5)
            return replace(
                stable,
                focus_fail_rate=0.9,
                fail_from=start,
                fail_until=start + rng.uniform(0.1, 0.3),
            )
        case ScenarioKind.FLAKY:
            return replace(stable, fail_rate=round(rng.uniform(0.25, 0.35), 3))
        case ScenarioKind.ENVIRONMENT_SPECIFIC:
            return replace(stable, focus_fail_rate=0.9, fails_on=_weak_spot(rng, project))
        case ScenarioKind.SLOWING:
            return replace(stable, slowdown=round(rng.uniform(1.5, 3.0), 2))


def _insert_scenarios(
    connection: sqlite3.Connection, rng: random.Random, timeline: Timeline, at_scale: bool
) -> tuple[dict[int, list[_Scenario]], list[tuple[_Scenario, ...]]]:
    """A pool of scenarios per project. Company 1's pools are fixed and hold the planted
    cases (the rest always pass); company 2's hold one of each troubled kind, the rest stable.
    At scale, also the scenarios of each plan of `scale.PLANS`, in its order (ids after all
    the pools')."""
    troubled = [kind for kind in ScenarioKind if kind is not ScenarioKind.STABLE]
    noise = scale.SECOND_COMPANY_NOISE if at_scale else 0.01
    pools: dict[int, list[_Scenario]] = {}
    next_id = 1
    for project in PROJECTS:
        names = MOBILE_SCENARIO_NAMES if project.mobile else WEB_SCENARIO_NAMES
        pool = []
        if project.company_id == planted.COMPANY_ID:
            _, first, last = planted.POOLS[project.id]
            for name in names[first:last]:
                kind, behaviour = _planted_behaviour(rng, next_id, project, timeline)
                message = planted.failure_of(next_id)[0]
                pool.append(_Scenario(next_id, project, name, kind, behaviour, message))
                next_id += 1
        else:
            size = rng.randint(14, len(names))
            kinds = troubled + [ScenarioKind.STABLE] * (size - len(troubled))
            rng.shuffle(kinds)
            for name, kind in zip(rng.sample(names, size), kinds, strict=True):
                behaviour = _behaviour(rng, kind, project, noise)
                pool.append(_Scenario(next_id, project, name, kind, behaviour))
                next_id += 1
        pools[project.id] = pool
    scale_scenarios = []
    for spec in scale.PLANS if at_scale else ():
        project = next(p for p in PROJECTS if p.id == spec.project_id)
        made = []
        for position, name in enumerate(spec.scenario_names):
            kind, behaviour, message = _scale_behaviour(rng, spec, position, project, timeline)
            made.append(_Scenario(next_id, project, name, kind, behaviour, message))
            next_id += 1
        scale_scenarios.append(tuple(made))
    every = [s for pool in pools.values() for s in pool] + [
        s for made in scale_scenarios for s in made
    ]
    connection.executemany(
        "INSERT INTO scenarios VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                s.id,
                s.project.company_id,
                s.project.id,
                s.name,
                s.kind,
                s.behaviour.base_runtime_s,
                s.behaviour.fail_rate,
                s.behaviour.focus_fail_rate,
                s.behaviour.fail_from,
                s.behaviour.fail_until,
                s.behaviour.fails_on,
                s.behaviour.slowdown,
                json.dumps(s.behaviour.fail_windows),
                s.behaviour.step_from_ms,
                s.behaviour.step_factor,
                s.behaviour.failure_level,
                s.failure_message,
            )
            for s in every
        ],
    )
    return pools, scale_scenarios


def _scale_behaviour(
    rng: random.Random, spec: scale.ScalePlan, position: int, project: Project, timeline: Timeline
) -> tuple[ScenarioKind, Behaviour, str]:
    """A scenario of a plan added at scale: it always passes, unless it is its plan's case
    (the first scenario; all but the last few of the outage plan's)."""
    behaviour = _stable(rng, project)
    now_ms = timeline.end_ms
    template = scale.TEMPLATES.get(spec.case, "")
    if spec.case == scale.OUTAGE and position < len(spec.scenario_names) - scale.OUTAGE_SPARED:
        windows = scale.outage_windows(now_ms)
        return ScenarioKind.STABLE, replace(behaviour, fail_windows=windows), scale.OUTAGE_TEMPLATE
    if position != 0:
        return ScenarioKind.STABLE, behaviour, ""
    match spec.case:
        case scale.FLAKY:
            return ScenarioKind.FLAKY, replace(behaviour, fail_rate=scale.FLAKY_FAIL_RATE), template
        case scale.BROKEN:
            since = timeline.position(scale.broken_since_ms(now_ms))
            broken = replace(behaviour, focus_fail_rate=1.0, fail_from=since, fail_until=2.0)
            return ScenarioKind.BROKEN, broken, template
        case scale.ENVIRONMENT_SPECIFIC:
            specific = replace(
                behaviour, focus_fail_rate=1.0, fails_on=scale.ENVIRONMENT_SPECIFIC_ON
            )
            return ScenarioKind.ENVIRONMENT_SPECIFIC, specific, template
    return ScenarioKind.STABLE, behaviour, ""


def _planted_behaviour(
    rng: random.Random, scenario_id: int, project: Project, timeline: Timeline
) -> tuple[ScenarioKind, Behaviour]:
    """A company-1 scenario: never failing, unless it is one of the planted cases."""
    behaviour = _stable(rng, project)
    now_ms = timeline.end_ms
    level = planted.FAILING_SCENARIOS.get(scenario_id, ("", ""))[1]
    windows = planted.fail_windows(now_ms, scenario_id)
    first_failure = timeline.position(min((start for start, _ in windows), default=now_ms))
    match scenario_id:
        case planted.TURNED_RED_SCENARIO:
            return ScenarioKind.BROKEN, replace(
                behaviour,
                focus_fail_rate=1.0,
                fail_from=first_failure,
                fail_until=2.0,
                fail_windows=windows,
                failure_level=level,
            )
        case planted.FIXED_SCENARIO:
            last = timeline.position(max(until for _, until in windows))
            return ScenarioKind.FIXED, replace(
                behaviour,
                fail_from=first_failure,
                fail_until=last,
                fail_windows=windows,
                failure_level=level,
            )
        case planted.FLAKY_SCENARIO:
            return ScenarioKind.FLAKY, replace(behaviour, fail_windows=windows, failure_level=level)
        case planted.SLOWING_SCENARIO:
            return ScenarioKind.SLOWING, replace(
                behaviour,
                base_runtime_s=planted.SLOWING_BASE_RUNTIME_S,
                slowdown=planted.SLOWING_DRIFT,
                step_from_ms=planted.slow_since_ms(now_ms),
                step_factor=planted.SLOWING_STEP_FACTOR,
            )
    if scenario_id == planted.ENVIRONMENT_SPECIFIC[0]:
        safari = next(env for env in ENVIRONMENTS if env.id == planted.ENVIRONMENT_SPECIFIC[1])
        return ScenarioKind.ENVIRONMENT_SPECIFIC, replace(
            behaviour, focus_fail_rate=1.0, fails_on=safari.browser_type, failure_level=level
        )
    return ScenarioKind.STABLE, behaviour


def _fewer_troubles(
    rng: random.Random, pool: Sequence[_Scenario], size: int, *, first: bool
) -> tuple[_Scenario, ...]:
    """At scale, a company-2 plan's scenarios: its project's first plan holds one troubled
    scenario at most, the others none (the troubled kinds would leave most runs red)."""
    stable = [s for s in pool if s.kind is ScenarioKind.STABLE]
    picked = rng.sample(stable, min(size, len(stable)))
    if first:
        troubled = [s for s in pool if s.kind is not ScenarioKind.STABLE]
        picked[0] = rng.choice(troubled)
    return tuple(picked)


def _plan_environments(
    rng: random.Random, project: Project, scenarios: Sequence[_Scenario]
) -> tuple[Environment, ...]:
    """Two to four environments, including one that a fragile scenario of the plan fails on,
    so environment-specific failures actually show up."""
    choices = _environment_choices(project)
    weak_spots = {s.behaviour.fails_on for s in scenarios} - {""}
    weak = [env for env in choices if weak_spots & {env.operating_system, env.browser_type}]
    picked = [rng.choice(weak)] if weak else []
    others = [env for env in choices if env not in picked]
    picked += rng.sample(others, rng.randint(2, min(4, len(choices))) - len(picked))
    return tuple(sorted(picked, key=lambda env: env.id))


def _activity(
    rng: random.Random, project: Project, outline: PlanOutline, first: bool
) -> tuple[float, float]:
    """When a plan was in use, as fractions of the window (an end past 1 means "still").

    The first plan of a live project runs all along, so each company always has a plan to
    execute; disabled plans stopped at some point, those of a retired project early on.
    """
    if not outline.enabled:
        return rng.uniform(0.0, 0.2), rng.uniform(0.25, 0.8 if project.enabled else 0.45)
    start = 0.0 if first or rng.random() < 0.7 else rng.uniform(0.2, 0.6)
    return start, 2.0


def _insert_plans(
    connection: sqlite3.Connection,
    rng: random.Random,
    timeline: Timeline,
    pools: dict[int, list[_Scenario]],
    scale_scenarios: Sequence[tuple[_Scenario, ...]] = (),
) -> list[_Plan]:
    plans: list[_Plan] = []
    plan_rows: list[tuple[object, ...]] = []
    alert_rows: list[tuple[object, ...]] = []
    for project in PROJECTS:
        staff = [p for p in PEOPLE if p.company_id == project.company_id and p.logs_in]
        for index, outline in enumerate(project.plans):
            plan_id = len(plans) + 1
            if project.company_id == planted.COMPANY_ID:
                by_id = {scenario.id: scenario for scenario in pools[project.id]}
                scenarios = tuple(by_id[i] for i in planted.PLAN_SCENARIOS[plan_id])
                environments = tuple(
                    env for env in ENVIRONMENTS if env.id in planted.PLAN_ENVIRONMENTS[plan_id]
                )
            else:
                size = rng.randint(3, MAX_SCENARIOS_PER_PLAN)
                if scale_scenarios:
                    scenarios = _fewer_troubles(rng, pools[project.id], size, first=index == 0)
                else:
                    scenarios = tuple(rng.sample(pools[project.id], size))
                environments = _plan_environments(rng, project, scenarios)
            active_from, active_until = _activity(rng, project, outline, first=index == 0)
            plan = _Plan(
                id=plan_id,
                project=project,
                outline=outline,
                scenarios=scenarios,
                environments=environments,
                active_from=active_from,
                active_until=active_until,
            )
            plans.append(plan)
            plan_rows.append(_plan_row(rng, timeline, plan, staff))
            alert_rows += _alert_rows(rng, plan, staff)
    for spec, scenarios in zip(scale.PLANS, scale_scenarios, strict=False):
        project = next(p for p in PROJECTS if p.id == spec.project_id)
        staff = [p for p in PEOPLE if p.company_id == project.company_id and p.logs_in]
        plan = _Plan(
            id=len(plans) + 1,
            project=project,
            outline=PlanOutline(spec.name, True),
            scenarios=scenarios,
            environments=tuple(env for env in ENVIRONMENTS if env.id in spec.environments),
            active_from=0.0,
            active_until=2.0,
            weight=spec.weight,
            every_environment=spec.every_environment,
        )
        plans.append(plan)
        plan_rows.append(_plan_row(rng, timeline, plan, staff))
        alert_rows += _alert_rows(rng, plan, staff)
    connection.executemany(
        "INSERT INTO plans VALUES"
        " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        plan_rows,
    )
    connection.executemany("INSERT INTO alerts VALUES (?, ?, ?, ?, ?, ?, ?)", alert_rows)
    connection.executemany(
        "INSERT INTO plan_scenarios VALUES (?, ?, ?)",
        [(p.id, i, s.id) for p in plans for i, s in enumerate(p.scenarios)],
    )
    connection.executemany(
        "INSERT INTO plan_environments VALUES (?, ?, ?)",
        [(p.id, i, e.id) for p in plans for i, e in enumerate(p.environments)],
    )
    return plans


def _at_second(ms: float) -> int:
    return int(ms) // 1000 * 1000


def _plan_row(
    rng: random.Random, timeline: Timeline, plan: _Plan, staff: Sequence[Person]
) -> tuple[object, ...]:
    """A plan's settings. The optional fields are sometimes absent, as the spec allows."""
    window_ms = timeline.end_ms - timeline.start_ms
    created_ms = _at_second(
        timeline.start_ms + plan.active_from * window_ms - rng.uniform(3, 60) * DAY_MS
    )
    if not plan.outline.enabled:  # disabling a plan is its last update
        updated_ms: int | None = _at_second(timeline.start_ms + plan.active_until * window_ms)
    elif rng.random() < 0.3:
        updated_ms = None
    else:
        updated_ms = _at_second(created_ms + rng.random() * (timeline.end_ms - created_ms))
    mobile = plan.project.mobile
    download_draw = rng.random()
    return (
        plan.id,
        plan.project.company_id,
        plan.project.id,
        "APPIUM" if mobile else "SELENIUM",
        plan.outline.name,
        plan.outline.enabled,
        rng.random() < 0.2,
        rng.choice((1, 2, 4, 5, 10)),
        rng.choice((0, 0, 1, 2)),
        rng.random() < 0.6,
        "CROSS" if rng.random() < 0.8 else "SEQUENCE",
        created_ms,
        updated_ms,
        staff[0].username,
        rng.choice(staff).username,
        rng.random() < 0.4,
        rng.choice(("YES", "NO", "ONLY_FAILURE")),
        rng.random() < 0.5,
        json.dumps(rng.choice(JAVA_PARAMETERS)),
        None if rng.random() < 0.3 else rng.random() < 0.5,
        None
        if download_draw < 0.4
        else ""
        if download_draw < 0.6
        else f"/downloads/plan-{plan.id}",
        rng.random() < 0.5 if mobile else None,
        rng.random() < 0.5 if mobile else None,
    )


def _alert_rows(
    rng: random.Random, plan: _Plan, staff: Sequence[Person]
) -> list[tuple[object, ...]]:
    """No alerts on some plans; e-mail alerts to the lead or a team list on the others."""
    if rng.random() < 0.4:
        return []
    domain = company_of(plan.project.company_id).email_domain
    targets = [email_of(staff[0]), f"qa-team@{domain}"]
    return [
        (plan.id, i, "EMAIL", "EVERY_TEST", target, rng.random() < 0.85, rng.random() < 0.3)
        for i, target in enumerate(targets[: rng.randint(1, 2)])
    ]


@dataclass(frozen=True)
class _Slot:
    """An execution to create: when, for which company, and (if fixed) plan and environments."""

    start_ms: int
    company_id: int
    plan_id: int | None = None
    environment_ids: tuple[int, ...] | None = None


def _slots(rng: random.Random, settings: SandboxSettings, timeline: Timeline) -> list[_Slot]:
    """The runs still going at "now", the planted schedules, and random starts for the rest."""
    first_company, second_company = (company.id for company in COMPANIES)
    active = planted.is_active(settings.executions, settings.days)
    running_plans = iter(planted.RUNNING_PLANS if active else ())
    slots = []
    for company_id, seconds in IN_PROGRESS_RUNS[: settings.executions]:
        plan_id = next(running_plans, None) if company_id == planted.COMPANY_ID else None
        slots.append(_Slot(timeline.end_ms - seconds * 1000, company_id, plan_id))
    if active:
        for schedule in planted.SCHEDULES:
            for index, offset_ms in enumerate(schedule.offsets_ms()):
                environments = planted.scheduled_environments(schedule.plan_id, index)
                slots.append(
                    _Slot(
                        timeline.end_ms - offset_ms,
                        planted.COMPANY_ID,
                        schedule.plan_id,
                        environments,
                    )
                )
    # The first company gets its share of all executions, planted ones included.
    first_wanted = FIRST_COMPANY_SHARE * settings.executions
    first_placed = sum(slot.company_id == first_company for slot in slots)
    remaining = settings.executions - len(slots)
    first_share = min(1.0, max(0.0, (first_wanted - first_placed) / max(remaining, 1)))
    window_s = (timeline.end_ms - timeline.start_ms) // 1000
    for _ in range(remaining):
        company_id = first_company if rng.random() < first_share else second_company
        slots.append(_Slot(timeline.start_ms + rng.randrange(window_s) * 1000, company_id))
    # Ids follow start order, as ids handed out at creation would.
    slots.sort(key=lambda slot: (slot.start_ms, slot.company_id, slot.plan_id or 0))
    return slots


def _insert_executions(
    connection: sqlite3.Connection,
    rng: random.Random,
    settings: SandboxSettings,
    timeline: Timeline,
    plans: Sequence[_Plan],
    delays: dict[int, tuple[int, int]],
) -> None:
    active = planted.is_active(settings.executions, settings.days)
    weighted = any(plan.weight != 1.0 for plan in plans)
    # Scheduled plans run only on their schedule inside the planted window.
    window_start_ms = planted.window_start_ms(timeline.end_ms) if active else timeline.end_ms + 1
    inputs = {
        plan.id: (
            tuple((s.id, s.behaviour) for s in plan.scenarios),
            {
                e.id: EnvironmentTraits(e.id, e.operating_system, e.browser_type)
                for e in plan.environments
            },
        )
        for plan in plans
    }
    by_id = {plan.id: plan for plan in plans}
    executors = {
        company.id: [p for p in PEOPLE if p.company_id == company.id] for company in COMPANIES
    }
    weights = {
        company_id: [p.execution_weight for p in people] for company_id, people in executors.items()
    }
    drawn: list[tuple[_Slot, _Plan, list[EnvironmentTraits], Person]] = []
    for slot in _slots(rng, settings, timeline):
        start_ms, company_id = slot.start_ms, slot.company_id
        position = timeline.position(start_ms)
        if slot.plan_id is not None:
            plan = by_id[slot.plan_id]
        else:
            candidates = [
                p
                for p in plans
                if p.project.company_id == company_id
                and p.active_from <= position < p.active_until
                and not (p.id in planted.SCHEDULED_PLANS and start_ms >= window_start_ms)
            ]
            if weighted:
                plan = rng.choices(candidates, [p.weight for p in candidates])[0]
            else:
                plan = rng.choice(candidates)
        _, plan_environments = inputs[plan.id]
        if slot.environment_ids is not None:
            environments = [plan_environments[env_id] for env_id in slot.environment_ids]
        elif plan.every_environment:
            environments = list(plan_environments.values())
        else:
            choices = list(plan_environments.values())
            if plan.id in planted.PLAN_ENVIRONMENTS and company_id == planted.COMPANY_ID:
                allowed = planted.random_environments(plan.id)
                choices = [env for env in choices if env.id in allowed]
            count = rng.randint(1, min(MAX_ENVIRONMENTS_PER_EXECUTION, len(choices)))
            environments = sorted(rng.sample(choices, count), key=lambda env: env.id)
        user = rng.choices(executors[company_id], weights[company_id])[0]
        drawn.append((slot, plan, environments, user))
    # Every draw is made: the evaluation's cases go on executions drawn (`planted.py`).
    at_scale = scale.is_active(settings.executions, settings.days)
    if planted.evaluation_cases_active(settings.executions, settings.days, at_scale):
        _plant_evaluation_cases(connection, timeline, drawn, inputs)
    rows = []
    for execution_id, (slot, plan, environments, user) in enumerate(drawn, start=1):
        start_ms, company_id = slot.start_ms, slot.company_id
        scenarios, _ = inputs[plan.id]
        delay_from_ms, extra_setup_s = delays.get(plan.id, (0, 0))
        outcome = derive_outcome(
            seed=settings.seed,
            timeline=timeline,
            execution_id=execution_id,
            start_ms=start_ms,
            scenarios=scenarios,
            environments=environments,
            extra_setup_s=extra_setup_s if start_ms >= delay_from_ms else 0,
        )
        summary = outcome.summary
        rows.append(
            (
                execution_id,
                company_id,
                plan.project.id,
                plan.id,
                user.id,
                start_ms,
                start_ms + outcome.runtime_ms,
                outcome.runtime_ms,
                outcome.status.value,
                json.dumps([env.id for env in environments]),
                json.dumps(summary),
                json.dumps([result.id for result in outcome.results]),
                status_counts_text(summary),
            )
        )
    connection.executemany(
        "INSERT INTO executions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
    )


def _plant_evaluation_cases(
    connection: sqlite3.Connection,
    timeline: Timeline,
    drawn: list[tuple[_Slot, _Plan, list[EnvironmentTraits], Person]],
    inputs: dict[int, tuple[tuple[tuple[int, Behaviour], ...], dict[int, EnvironmentTraits]]],
) -> None:
    """The outage night and the broken and unresolved scenarios (`planted.py`): fail windows on
    the starts of executions already drawn, written to the scenarios (the results operation
    derives from them) and to `inputs` (the generator does). The unresolved scenario's
    executions are put on every environment of their plan (`drawn` changed in place)."""

    def starts(plan_id: int) -> list[int]:
        return sorted(
            slot.start_ms
            for slot, plan, _, _ in drawn
            if plan.id == plan_id and slot.company_id == planted.COMPANY_ID
        )

    night = planted.outage_start(starts(planted.OUTAGE_PLAN), timeline.end_ms)
    broken = planted.broken_starts(starts(planted.BROKEN_PLAN))
    night_window: tuple[tuple[int, int], ...] = ((night, night + 1000),)
    windows = dict.fromkeys(planted.outage_scenarios(), night_window)
    windows[planted.BROKEN_SCENARIO] = tuple((at, at + 1000) for at in broken)
    unresolved = planted.unresolved_starts(starts(planted.BROKEN_PLAN))
    windows[planted.UNRESOLVED_SCENARIO] = tuple((at, at + 1000) for at in unresolved)
    _, plan_environments = inputs[planted.BROKEN_PLAN]
    every = [plan_environments[env_id] for env_id in planted.PLAN_ENVIRONMENTS[planted.BROKEN_PLAN]]
    for index, (slot, plan, _, user) in enumerate(drawn):
        if (
            plan.id == planted.BROKEN_PLAN
            and slot.company_id == planted.COMPANY_ID
            and slot.start_ms in unresolved
        ):
            drawn[index] = (slot, plan, list(every), user)
    for scenario_id, added in windows.items():
        level = planted.failure_of(scenario_id)[1]
        for plan_id, (scenarios, environments) in list(inputs.items()):
            inputs[plan_id] = (
                tuple(
                    (
                        sid,
                        replace(b, fail_windows=b.fail_windows + added, failure_level=level)
                        if sid == scenario_id
                        else b,
                    )
                    for sid, b in scenarios
                ),
                environments,
            )
        behaviour = next(b for sc, _ in inputs.values() for sid, b in sc if sid == scenario_id)
        connection.execute(
            "UPDATE scenarios SET fail_windows = ?, failure_level = ? WHERE id = ?",
            (json.dumps(behaviour.fail_windows), level, scenario_id),
        )
