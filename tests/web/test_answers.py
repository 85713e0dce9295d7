"""The API's answers are arena/schemas' models: every route of /api/v1/ answers with one of
:data:`arena.schemas.docs.ANSWERS` (or a list of one), the OpenAPI schema is built from them, and
docs/api.md shows their tables as the code draws them."""

from __future__ import annotations

import typing
from pathlib import Path

from arena.schemas.docs import ANSWERS, markdown
from arena.web import WebSettings, create_app

from .conftest import app_routes

ROOT = Path(__file__).resolve().parents[2]
NOT_JSON = {"/api/v1/matches/{match_id}/output/{bot_index}": "a bot's output, as text/plain",
            "/api/v1/scrimmages/{scrimmage_id}/games/{number}/output/{bot_index}": "a bot's output, as text/plain"}


def test_every_route_of_the_api_answers_with_a_documented_model():
    answered = set()
    for path, route in app_routes():
        if not path.startswith("/api/v1/"):
            continue
        if path in NOT_JSON:
            assert route.response_model is None, path
            continue
        model = route.response_model
        if typing.get_origin(model) is list:  # GET /api/v1/leagues, GET /api/v1/submissions
            (model,) = typing.get_args(model)
        assert model in ANSWERS, f"{path} answers {model}: add it to ANSWERS (arena/schemas/docs.py)"
        answered.add(model)
    assert answered == set(ANSWERS), "stale ANSWERS"


def test_the_openapi_schema_is_built_from_the_same_models():
    components = create_app(None, WebSettings(worker=False)).openapi()["components"]["schemas"]
    for model in ANSWERS:
        shown = components[model.__name__]
        assert list(shown["properties"]) == [f.alias or name for name, f in model.model_fields.items()]
        assert shown["additionalProperties"] is False, model  # exactly these fields
        assert [key for key, field in shown["properties"].items() if not field.get("description")] == [], model


def test_docs_show_the_answers_of_the_code():
    docs = (ROOT / "docs" / "api.md").read_text()
    assert markdown("api") in docs, "docs/api.md is out of date: paste `python -m arena.schemas.docs api` into it"
