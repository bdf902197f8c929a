// The whole library for its users: every layer's module, re-exported. Each layer is a target of its own (see
// Package.swift), so the compiler keeps the layering: a layer imports only the ones below it.
@_exported import RichPushCache
@_exported import RichPushCore
@_exported import RichPushHTTP
@_exported import RichPushImaging
@_exported import RichPushPayload
@_exported import RichPushPipeline
@_exported import RichPushPreview
@_exported import RichPushRedis
