import RichPushCore

extension RequestSigning {
    /// The `CURLOPT_AWS_SIGV4` parameter: provider, header prefix, region and service. A libcurl format, so it
    /// lives with the transfer that sets it rather than with the signing settings in Core.
    var curlParameter: String { "aws:amz:\(region):\(service)" }
}
