# Finishes arena/cpp-base (arena/bots/images.py, CPP_BASE), offline: the kit is built once, here, into
# /usr/local (libarenabot.a, arenabot/arenabot.h, arena/v1/*.pb.h and pkg-config's arenabot.pc), so
# a bot's build compiles only the bot. The context holds kit/ (this folder) and protos/arena/.
ARG ROOTFS
FROM ${ROOTFS}
USER root
COPY kit /tmp/kit
COPY protos /tmp/protos
RUN make -C /tmp/kit -j"$(nproc)" install PROTOS=/tmp/protos BUILD=/tmp/build PREFIX=/usr/local \
 && rm -rf /tmp/kit /tmp/protos /tmp/build
USER 10001:10001
