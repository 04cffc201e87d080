# Static, non-root image of the in-cluster controller:
#   docker build -t liqo-auth-controller .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/liqo-auth-controller ./cmd/liqo-auth-controller

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/liqo-auth-controller /liqo-auth-controller
USER 65532:65532
ENTRYPOINT ["/liqo-auth-controller"]
