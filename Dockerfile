# Static, non-root image of the in-cluster controller, for who has Docker
# (make image builds the same image without a daemon):
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) -t liqo-auth-controller .
FROM golang:1.26 AS build
ARG VERSION=dev
ARG REVISION=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -buildid= \
      -X github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version.Version=${VERSION} \
      -X github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version.Revision=${REVISION}" \
    -o /out/liqo-auth-controller ./cmd/liqo-auth-controller

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG REVISION=
LABEL org.opencontainers.image.title=liqo-auth-controller \
      org.opencontainers.image.version=${VERSION} \
      org.opencontainers.image.revision=${REVISION} \
      org.opencontainers.image.source=https://github.com/liqo-auth-tui/liqo-auth-tui
COPY --from=build /out/liqo-auth-controller /liqo-auth-controller
USER 65532:65532
ENTRYPOINT ["/liqo-auth-controller"]
