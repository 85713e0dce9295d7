# The verbs people type. Every target sets up what it needs, so each works on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup docker postgres redis protoc browser wheels images test thorough lint demo serve bench protos clean

setup: $(STAMP)

# the protocol package, the engines and the bot kit are distributions of their own, which arena depends on
$(STAMP): pyproject.toml protos/python/pyproject.toml games/pyproject.toml kits/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e protos/python -e games -e kits/python -e '.[dev]'
	touch $(STAMP)

## docker: install Debian's docker.io if missing and start the engine if none answers (root)
docker:
	scripts/docker-up.sh

## postgres: a local PostgreSQL with the test database (root), for the store's tests on a real server
postgres:
	scripts/postgres-up.sh

## redis: a local Redis on 127.0.0.1:6379 (root), the Celery broker of `arena worker` and of the worker tests
redis:
	scripts/redis-up.sh

## protoc: protoc and its plugins for C++, Java and Go, and what their output compiles against, from
## Debian; @grpc/proto-loader from npm for the JavaScript check (root): tests/test_protoc.py runs them
protoc:
	scripts/protoc-up.sh

## browser: Debian's chromium and chromium-driver, which the web tests drive (root; never a download)
browser:
	scripts/browser-up.sh

## wheels: dist/arena_protocol-*.whl, dist/arena_games-*.whl and dist/arenabot-*.whl: the protocol package,
## the game engines and the Python bot kit
wheels: setup
	$(BIN)/arena images wheels --out dist

## images: the offline base images (debootstrap + docker import; the Python one installs those
## wheels) and the sample bots' images, each built from its own folder
images: setup docker
	$(BIN)/arena images build
	@for folder in sample_bots/*/*/; do \
	  if [ -f "$$folder/bot.toml" ]; then $(BIN)/arena bot build "$$folder" --quiet || exit 1; fi; \
	done

## test: lint, then the whole test suite (it needs the Docker engine, the images, PostgreSQL, Redis,
## protoc and a browser). The engines' tests need none of them: scripts/test.sh runs them while
## the rest is set up, then the rest of the suite
test: setup lint docker
	BIN=$(BIN) scripts/test.sh

## thorough: the engines' property tests with 5,000 fresh random games per game and player count, and
## determinisation at 1,000 fresh positions each
## (about 40 minutes; the test suite plays the same 300 games and 40 positions each run)
thorough: setup
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest -q tests/games/test_properties.py tests/games/test_determinise.py

## lint: ruff, then mypy on what pyproject.toml's [tool.mypy] lists: strict on the engines, the referee, the
## protocol package, the Python kit and the sample bots; clean on arena/ and bench/ (every body checked,
## annotations not required); tests/ in mypy's default mode (annotated functions checked, the rest not)
lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

## demo: the main job: a Prohis league of the sample bots in containers, run, and its leaderboard
demo: images
	$(BIN)/arena demo

## serve: the web server (http://127.0.0.1:8000/) on the demo league's store (runs/arena.db)
serve: setup
	$(BIN)/arena serve --db sqlite:///runs/arena.db

## bench: the benchmarks (not part of the tests)
bench: setup
	$(BIN)/python -m bench.engines
	$(BIN)/python -m bench.protocol
	$(BIN)/python -m bench.web
	$(BIN)/python -m bench.signin
	$(BIN)/python -m bench.headers
	$(BIN)/python -m bench.ladder
	$(BIN)/python -m bench.search --jobs 2

## protos: regenerate the Python code of protos/ (a test fails when it is stale)
protos: setup
	$(BIN)/python protos/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache .mypy_cache dist
