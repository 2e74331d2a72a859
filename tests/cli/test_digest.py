"""`python -m dashboard digest --standup`: the page's digest, delivered to a chat's webhook.

The CLI runs on the embedded demo (whose company 1 holds the planted standup cases) and sends
through apprise to a webhook receiver on loopback: the delivery as a real `python -m dashboard`
subprocess, whose output must not show the webhook's secret; the other calls in this process
(`tests.cli.in_process`). The links it sends are then opened on the dashboard's own pages
(AppTest on the same deterministic demo data).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from dashboard.state import routes
from sandbox.data import planted
from tests.cli.conftest import Cli
from tests.cli.webhook import Receiver
from tests.dashboard import standup_history
from tests.dashboard.apptest import EXECUTIONS, RESULTS, assert_no_failure
from tests.dashboard.conftest import AppFactory
from tests.dashboard.test_page_names import CHAT_HOSTILE

DASHBOARD = "http://dash.example/qa/"
WEBHOOK_SECRET = "hook-T0k3nThatMustNotBePrinted"
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
TITLES = ("Turned red", "Fixed", "Still failing", "Newly failing scenarios", "Slower")


def sections(markdown: str) -> dict[str, str]:
    """The digest's sections by title (bold lines), each its bullet lines."""
    found: dict[str, str] = {}
    for title in TITLES:
        found[title] = markdown.split(f"**{title}**\n", 1)[1].split("\n\n", 1)[0]
    return found


def plans_linked(text: str) -> set[int]:
    return {
        int(parse_qs(urlsplit(url).query)["plan"][0])
        for _, url in LINK.findall(text)
        if urlsplit(url).path.endswith("/executions")
    }


def test_the_digest_arrives_once_with_the_planted_items_and_absolute_links(
    cli_process: Cli, receiver: Receiver, app: AppFactory
) -> None:
    sent = cli_process(
        "digest",
        "--standup",
        "--to",
        receiver.url(WEBHOOK_SECRET),
        "--dashboard-url",
        DASHBOARD,
        "--tz",
        "Europe/Berlin",
    )

    assert sent.returncode == 0, sent.stderr
    assert WEBHOOK_SECRET not in sent.stdout + sent.stderr, "the destination's secret is shown"
    assert "Sent the standup digest to json://" in sent.stderr
    # Exactly once: the process has ended, so everything it sent has arrived.
    assert len(receiver.messages) == 1
    assert receiver.paths == [f"/{WEBHOOK_SECRET}"]
    message = receiver.messages[0]
    assert message["title"] == "Since the last standup"
    body = str(message["message"])
    assert body.startswith("**Since the last standup** (")
    assert "Europe/Berlin" in body.splitlines()[0]

    parts = sections(body)
    assert plans_linked(parts["Turned red"]) == {planted.TURNED_RED_PLAN}
    assert plans_linked(parts["Fixed"]) == {planted.FIXED_PLAN}
    assert plans_linked(parts["Still failing"]) == {planted.STILL_FAILING_PLAN}
    assert plans_linked(parts["Slower"]) == {planted.SLOWER_PLAN}
    newly = parts["Newly failing scenarios"]
    assert f"scenario {planted.TURNED_RED_SCENARIO} on" in newly
    assert plans_linked(newly) == {planted.TURNED_RED_PLAN}

    # Every link is absolute, under the dashboard's address, to a page that exists, with only
    # that page's own parameters.
    urls = [url for _, url in LINK.findall(body)]
    assert len(urls) >= 10
    by_path = {route.url_path: route for route in routes.ALL}
    for url in urls:
        assert url.startswith(DASHBOARD), url
        page = url[len(DASHBOARD) :].split("?")[0]
        assert page in by_path, url
        assert set(parse_qs(urlsplit(url).query)) <= {
            param.name for param in by_path[page].params
        }, url

    # The turned-red item's links open the failing execution and the plan's executions.
    turned_red = LINK.findall(parts["Turned red"])
    plan_url = next(url for text, url in turned_red if "/executions?" in url)
    failed_text, failed_url = next((t, u) for t, u in turned_red if "/results?" in u)
    failed_id = int(failed_text.removeprefix("execution "))
    results_page = app(
        RESULTS, **{k: v[0] for k, v in parse_qs(urlsplit(failed_url).query).items()}
    )
    results_page.run()
    assert_no_failure(results_page)
    assert [t.value for t in results_page.title] == [f"Execution #{failed_id}"]
    shown_results = results_page.dataframe[0].value
    failing = shown_results[shown_results["Scenario"] == planted.TURNED_RED_SCENARIO]
    assert not failing.empty
    assert set(failing["Level"]) <= {"FAILURE", "ERROR"}

    executions_page = app(
        EXECUTIONS, **{k: v[0] for k, v in parse_qs(urlsplit(plan_url).query).items()}
    )
    executions_page.run()
    assert_no_failure(executions_page)
    assert executions_page.query_params["plan"] == str(planted.TURNED_RED_PLAN)
    listed = executions_page.dataframe[-1].value
    assert set(listed["Plan"]) == {"Web Shop smoke"}
    assert failed_id in set(listed["Id"])


def test_print_writes_the_markdown_without_apprise_or_a_webhook(cli: Cli) -> None:
    printed = cli("digest", "--standup", "--to", "-", "--dashboard-url", DASHBOARD)

    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("**Since the last standup**")
    assert f"]({DASHBOARD}results?" in printed.stdout


def test_bad_destinations_and_addresses_are_refused_before_any_work(cli: Cli) -> None:
    no_address = cli("digest", "--standup", "--to", "json://127.0.0.1:9/x")
    assert no_address.returncode == 2
    assert "public address" in no_address.stderr
    assert "embedded demo" not in no_address.stderr, "refused before starting anything"

    unknown = cli(
        "digest",
        "--standup",
        "--to",
        f"nosuchscheme://{WEBHOOK_SECRET}",
        "--dashboard-url",
        DASHBOARD,
    )
    assert unknown.returncode == 2
    assert "nosuchscheme://" in unknown.stderr
    assert WEBHOOK_SECRET not in unknown.stderr

    relative = cli("digest", "--standup", "--to", "-", "--dashboard-url", "javascript:alert(1)")
    assert relative.returncode == 2
    assert "http(s) URL" in relative.stderr

    for bad in (["--tz", "Mars/Olympus"], ["--at", "25:00"], ["--project", "x"]):
        wrong = cli("digest", "--standup", "--to", "-", *bad)
        assert wrong.returncode == 2, bad
        assert "Traceback" not in wrong.stderr


def test_a_destination_that_refuses_is_exit_3(cli: Cli) -> None:
    # Nothing listens on port 9 of loopback: the send fails, the command says so.
    refused = cli(
        "digest",
        "--standup",
        "--to",
        f"json://127.0.0.1:9/{WEBHOOK_SECRET}",
        "--dashboard-url",
        DASHBOARD,
    )
    assert refused.returncode == 3, refused.stderr
    assert "did not accept the digest" in refused.stderr
    assert WEBHOOK_SECRET not in refused.stdout + refused.stderr


def test_the_destination_may_come_from_the_environment_or_the_secrets_file(
    cli: Cli, receiver: Receiver, workdir: Path
) -> None:
    nowhere = cli("digest", "--standup", "--dashboard-url", DASHBOARD)
    assert nowhere.returncode == 2
    assert "where should the digest go?" in nowhere.stderr

    from_env = cli(
        "digest",
        "--standup",
        "--dashboard-url",
        DASHBOARD,
        env={"QA_DASHBOARD_DIGEST_TO": receiver.url(WEBHOOK_SECRET)},
    )
    assert from_env.returncode == 0, from_env.stderr
    assert WEBHOOK_SECRET not in from_env.stdout + from_env.stderr

    secrets = workdir / "digest.toml"
    secrets.write_text(
        f'[digest]\nto = "{receiver.url(WEBHOOK_SECRET)}"\n\n'
        f'[dashboard]\npublic_url = "{DASHBOARD}"\n',
        encoding="utf-8",
    )
    from_file = cli("digest", "--standup", "--secrets", str(secrets))
    assert from_file.returncode == 0, from_file.stderr
    assert len(receiver.messages) == 2
    assert f"]({DASHBOARD}results?" in receiver.messages[1]["message"]


def test_names_in_the_digest_mention_link_and_reorder_nothing(cli: Cli) -> None:
    with standup_history.serve_history(names=CHAT_HOSTILE, ending=datetime.now(UTC)) as service:
        printed = cli(
            "digest",
            "--standup",
            "--to",
            "-",
            env=standup_history.dashboard_env(service),
        )

    assert printed.returncode == 0, printed.stderr
    text = printed.stdout
    read = re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")
    # Each plan reads as its name (the slower one only when the window holds three of its runs)
    for name in (
        "@channel https://evil.example/login",  # turned red
        "<!here> phish@evil.example",  # still failing
        "@all evil.example/reset",  # running
    ):
        assert name in read
    assert "www.evil.example \ufffdexe.txt" in read  # fixed: the pages' marker for the override
    for unbroken in ("@channel", "@here", "@all", "@everyone", "<!here>", "://", "evil.example"):
        assert unbroken not in text  # ... yet mentions, links and addresses nothing
    assert "\u202e" not in text
