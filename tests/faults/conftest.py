"""The CLI fixtures of tests/cli, for the fault tests."""

from tests.cli.conftest import cli, write, write_jsonl  # noqa: F401 - fixtures
