# Finishes arena/node-base (see arena/bots/images.py), offline: the JavaScript kit (arenabot), the npm
# packages it needs (fetched on the host by `npm ci`: pure JavaScript, they run on Debian's node
# as they are) and the .proto files, where any bot can require('arenabot') with no setup.
ARG ROOTFS
FROM ${ROOTFS}
USER root
COPY kit/node_modules/ /usr/local/lib/node_modules/
COPY kit/package.json kit/index.js /usr/local/lib/node_modules/arenabot/
COPY kit/lib/ /usr/local/lib/node_modules/arenabot/lib/
COPY protos/ /usr/local/lib/node_modules/arenabot/protos/
ENV NODE_PATH=/usr/local/lib/node_modules
USER 10001:10001
