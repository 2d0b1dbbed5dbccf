"""kgqa's tests. What they share that is not a fixture is in tests/helpers, whose asserts pytest rewrites as it does a
test module's (a failing helper's assert shows its values); registered here, before any helper is imported."""

import pytest

pytest.register_assert_rewrite("tests.helpers")
