"""The fixed cast of the demo world: companies, projects, plan outlines, environments, people.

These do not depend on the seed, so documentation and tests can name them ("project 1 of
company 1", "acme.lead"); the seed decides everything that varies (scenarios, plan details,
executions, outcomes).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Authority(StrEnum):
    """Authorities the three read operations require (spec section 5)."""

    TEST_RESULT_VIEW = "TEST_RESULT_VIEW"
    TEST_EXECUTION_VIEW = "TEST_EXECUTION_VIEW"
    PLAN_VIEW = "PLAN_VIEW"


ALL_AUTHORITIES: tuple[Authority, ...] = tuple(Authority)


@dataclass(frozen=True)
class Company:
    id: int
    name: str
    email_domain: str
    time_zone: str


@dataclass(frozen=True)
class PlanOutline:
    """A plan's name and whether it is still in use; the seed fills in the rest."""

    name: str
    enabled: bool


@dataclass(frozen=True)
class Project:
    id: int
    company_id: int
    name: str
    mobile: bool
    enabled: bool
    plans: tuple[PlanOutline, ...]


@dataclass(frozen=True)
class Environment:
    id: int
    operating_system: str
    operating_system_clean_name: str
    browser_type: str
    environment_version: str
    # Lower-case browser on desktop, the device name on mobile (as on the real service).
    environment_type: str
    screen_resolution: str
    enabled: bool = True

    @property
    def mobile(self) -> bool:
        return self.operating_system in ("IOS", "ANDROID")

    @property
    def name(self) -> str:
        platform = self.operating_system_clean_name
        if self.mobile:
            return f"{self.environment_type} {platform} {self.environment_version}"
        return f"{platform} {self.browser_type.capitalize()} {self.environment_version}"


@dataclass(frozen=True)
class Person:
    """A user of the platform. `authorities` is empty for people who never log in here."""

    id: int
    company_id: int
    username: str
    name: str
    surname: str
    email_local_part: str
    roles: tuple[str, ...]
    authorities: tuple[Authority, ...]
    logs_in: bool
    # Relative share of the company's executions this person starts (CI starts most).
    execution_weight: int


COMPANIES: tuple[Company, ...] = (
    Company(1, "Acme Retail", "acme.example", "Europe/Berlin"),
    Company(2, "Globex Mobile", "globex.example", "America/Chicago"),
)

# The company of the demo user whose company is gone: deliberately absent from COMPANIES.
MISSING_COMPANY = Company(99, "Initech (deleted)", "initech.example", "UTC")

PROJECTS: tuple[Project, ...] = (
    Project(
        1,
        1,
        "Web Shop",
        mobile=False,
        enabled=True,
        plans=(
            PlanOutline("Web Shop smoke", enabled=True),
            PlanOutline("Web Shop regression", enabled=True),
            PlanOutline("Web Shop cross-browser nightly", enabled=True),
            PlanOutline("Web Shop regression (v1)", enabled=False),
        ),
    ),
    Project(
        2,
        1,
        "Checkout",
        mobile=False,
        enabled=True,
        plans=(
            PlanOutline("Checkout smoke", enabled=True),
            PlanOutline("Payment providers", enabled=True),
        ),
    ),
    Project(
        3,
        1,
        "Shop App",
        mobile=True,
        enabled=True,
        plans=(
            PlanOutline("Shop App smoke", enabled=True),
            PlanOutline("Shop App regression", enabled=True),
            PlanOutline("Shop App tablet layouts", enabled=False),
        ),
    ),
    Project(
        4,
        1,
        "Legacy Admin",
        mobile=False,
        enabled=False,
        plans=(PlanOutline("Legacy Admin regression", enabled=False),),
    ),
    Project(
        5,
        2,
        "Customer Portal",
        mobile=False,
        enabled=True,
        plans=(
            PlanOutline("Portal smoke", enabled=True),
            PlanOutline("Portal regression", enabled=True),
            PlanOutline("Portal accessibility", enabled=False),
        ),
    ),
    Project(
        6,
        2,
        "Field Service App",
        mobile=True,
        enabled=True,
        plans=(
            PlanOutline("Field app smoke", enabled=True),
            PlanOutline("Field app offline sync", enabled=True),
        ),
    ),
)

ENVIRONMENTS: tuple[Environment, ...] = (
    Environment(1, "WIN10", "Windows 10", "CHROME", "134", "chrome", "1920x1080"),
    Environment(2, "WIN10", "Windows 10", "FIREFOX", "136", "firefox", "1920x1080"),
    Environment(3, "WIN10", "Windows 10", "EDGE", "134", "edge", "1366x768"),
    Environment(4, "WIN11", "Windows 11", "CHROME", "LATEST", "chrome", "1920x1080"),
    Environment(5, "WIN11", "Windows 11", "EDGE", "LATEST", "edge", "2560x1440"),
    Environment(6, "LINUX", "Linux", "CHROME", "133", "chrome", "1920x1080"),
    Environment(7, "LINUX", "Linux", "FIREFOX", "LATEST", "firefox", "1280x1024"),
    Environment(8, "MAC", "macOS", "SAFARI", "18", "safari", "2560x1600"),
    Environment(9, "MAC", "macOS", "CHROME", "LATEST", "chrome", "1440x900"),
    Environment(10, "WIN8_1", "Windows 8.1", "IE", "11", "ie", "1366x768", enabled=False),
    Environment(11, "IOS", "iOS", "SAFARI", "16.7", "IPHONE 8", "750x1334"),
    Environment(12, "IOS", "iOS", "SAFARI", "17.5", "IPHONE 14", "1170x2532"),
    Environment(13, "ANDROID", "Android", "CHROME", "13", "Galaxy_Note20", "1080x2400"),
    Environment(14, "ANDROID", "Android", "CHROME", "14", "Pixel_7", "1080x2400"),
)

_LEAD_ROLES = ("ROLE_USER", "ROLE_REPORT", "ROLE_RUN_TEST", "ROLE_COMPANY_ADMIN")
_QA_ROLES = ("ROLE_USER", "ROLE_REPORT", "ROLE_RUN_TEST")
_CI_ROLES = ("ROLE_INTEGRATION", "ROLE_RUN_TEST")


def _without(authority: Authority) -> tuple[Authority, ...]:
    return tuple(a for a in ALL_AUTHORITIES if a is not authority)


def _company_people(company_id: int, first_id: int, prefix: str) -> tuple[Person, ...]:
    """One full-authority lead, one user lacking each authority, and a CI account."""
    names = {
        1: (("Ada", "Lovelace"), ("Ben", "Carter"), ("Chloe", "Diaz"), ("Dev", "Evans")),
        2: (("Grace", "Hopper"), ("Hal", "Ito"), ("Iris", "Jansen"), ("Jon", "Kim")),
    }[company_id]
    return (
        Person(
            first_id,
            company_id,
            f"{prefix}.lead",
            *names[0],
            email_local_part="lead",
            roles=_LEAD_ROLES,
            authorities=ALL_AUTHORITIES,
            logs_in=True,
            execution_weight=30,
        ),
        Person(
            first_id + 1,
            company_id,
            f"{prefix}.no-results",
            *names[1],
            email_local_part="no-results",
            roles=_QA_ROLES,
            authorities=_without(Authority.TEST_RESULT_VIEW),
            logs_in=True,
            execution_weight=5,
        ),
        Person(
            first_id + 2,
            company_id,
            f"{prefix}.no-executions",
            *names[2],
            email_local_part="no-executions",
            roles=_QA_ROLES,
            authorities=_without(Authority.TEST_EXECUTION_VIEW),
            logs_in=True,
            execution_weight=5,
        ),
        Person(
            first_id + 3,
            company_id,
            f"{prefix}.no-plans",
            *names[3],
            email_local_part="no-plans",
            roles=_QA_ROLES,
            authorities=_without(Authority.PLAN_VIEW),
            logs_in=True,
            execution_weight=5,
        ),
        Person(
            first_id + 4,
            company_id,
            f"{prefix}.ci",
            "CI",
            "Pipeline",
            email_local_part="ci",
            roles=_CI_ROLES,
            authorities=(),
            logs_in=False,
            execution_weight=55,
        ),
    )


# Order matters: the first person is the dashboard's demo login (full authority, company 1).
PEOPLE: tuple[Person, ...] = (
    *_company_people(1, 1, "acme"),
    *_company_people(2, 11, "globex"),
    Person(
        21,
        MISSING_COMPANY.id,
        "initech.ghost",
        "Milton",
        "Waddams",
        email_local_part="ghost",
        roles=_QA_ROLES,
        authorities=ALL_AUTHORITIES,
        logs_in=True,
        execution_weight=0,
    ),
)


def company_of(company_id: int) -> Company:
    """The company record, including the deliberately missing one (people still name it)."""
    for company in (*COMPANIES, MISSING_COMPANY):
        if company.id == company_id:
            return company
    raise KeyError(company_id)


def email_of(person: Person) -> str:
    return f"{person.email_local_part}@{company_of(person.company_id).email_domain}"
