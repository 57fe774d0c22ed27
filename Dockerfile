# Container image of the pricing service (the `pricing` binary of server/).
# For machines with Docker and access to an image registry; see compose.yaml.
#   docker build -t pricing-server .
#   docker run --rm -p 8080:8080 pricing-server serve --listen 0.0.0.0:8080 \
#       --database-url postgres://USER:PASSWORD@HOST:5432/DB
# (Tests on the development machines use scripts/build-postgres-image.sh instead:
# they need no registry.)

FROM rust:1.95-bookworm AS builder
WORKDIR /src
# Migrations and sql/ are embedded at compile time, so the whole workspace is
# the build input (.dockerignore keeps target/ and .git out).
COPY . .
RUN cargo build --release -p pricing-server --bin pricing \
 && install -D -m 0755 target/release/pricing /out/pricing

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/pricing --create-home pricing
COPY --from=builder /out/pricing /usr/local/bin/pricing
USER pricing
WORKDIR /var/lib/pricing
ENV PRICING_LISTEN=0.0.0.0:8080 \
    PRICING_DATA_DIR=/var/lib/pricing/data
EXPOSE 8080
ENTRYPOINT ["pricing"]
CMD ["serve", "--listen", "0.0.0.0:8080"]
