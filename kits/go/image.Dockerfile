# Finishes arena/go-base (arena/bots/images.py), offline: the Go code of protos/arena/v1 (package
# arena/v1/arenapb) and the kit (package arena/arenabot), compiled with gRPC, so that a bot's
# build compiles only the bot. Go works in GOPATH mode: Debian's Go sources are a GOPATH
# (/usr/share/gocode), the kit's is another, and nothing is downloaded.
ARG ROOTFS
FROM ${ROOTFS}
USER root
# No C compiler here, so no cgo. A bot's build caches in /tmp (writable in a build step, and a
# tmpfs at run time) and writes its binary into /bot, which the bot user (a build's user) owns.
ENV GO111MODULE=off GOPATH=/usr/local/share/arena-go:/usr/share/gocode CGO_ENABLED=0 GOCACHE=/tmp/go-build
COPY kit/arenabot /usr/local/share/arena-go/src/arena/arenabot
COPY protos /tmp/protos
# Go's standard library and every package the kit needs are installed compiled (.a files), so
# a bot's build compiles only its own code. (Debian's compiled library, built with cgo, is not
# in the image: arena/bots/images.py drops it.)
RUN protoc -I /tmp/protos --go_out=/usr/local/share/arena-go/src --go-grpc_out=/usr/local/share/arena-go/src \
        /tmp/protos/arena/v1/*.proto \
 && go install std \
 && go vet arena/arenabot && go test arena/arenabot \
 && go install $(go list -deps arena/arenabot) \
 && rm -rf /tmp/protos /tmp/go-build \
 && chown 10001:10001 /bot
USER 10001:10001
