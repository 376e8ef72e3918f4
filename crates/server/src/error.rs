//! How failures become HTTP answers: always the JSON [`ApiError`] body.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use velha_api::{ApiError, ErrorCode};

/// An error answer.
#[derive(Debug)]
pub struct AppError(pub ApiError);

/// The result of a handler.
pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> AppError {
        AppError(ApiError::new(code, message))
    }

    /// The same error on a room's live connection.
    pub fn to_room_msg(&self) -> velha_api::RoomServerMsg {
        velha_api::RoomServerMsg::Error {
            code: self.0.code,
            message: self.0.message.clone(),
        }
    }

    /// The status each code answers with.
    pub fn status(&self) -> StatusCode {
        match self.0.code {
            ErrorCode::BadRequest
            | ErrorCode::BadEmail
            | ErrorCode::BadName
            | ErrorCode::OffensiveName
            | ErrorCode::ReservedName
            | ErrorCode::WeakPassword
            | ErrorCode::BadRegion
            | ErrorCode::BadCountry
            | ErrorCode::NameRequired
            | ErrorCode::BadSignature
            | ErrorCode::BadLink
            | ErrorCode::TooLong => StatusCode::BAD_REQUEST,
            ErrorCode::WrongPassword | ErrorCode::Unauthorized | ErrorCode::BadGoogleToken => {
                StatusCode::UNAUTHORIZED
            }
            ErrorCode::SubscribersOnly
            | ErrorCode::WrongCountry
            | ErrorCode::Forbidden
            | ErrorCode::EmailUnverified
            | ErrorCode::Banned
            | ErrorCode::SignInAgain => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::Timeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::EmailTaken
            | ErrorCode::NameTaken
            | ErrorCode::Conflict
            | ErrorCode::AlreadyPlaying
            | ErrorCode::AlreadyCreatedGroup
            | ErrorCode::TooManyGroups
            | ErrorCode::GroupFull
            | ErrorCode::GroupNotStarted
            | ErrorCode::GroupMatchLive
            | ErrorCode::RoomFull
            | ErrorCode::RoomClosed
            | ErrorCode::AvatarTaken
            | ErrorCode::NotYourTurn
            | ErrorCode::IllegalMove
            | ErrorCode::NotAbsentYet
            | ErrorCode::NoCustomer
            | ErrorCode::TooManySubscriptions => StatusCode::CONFLICT,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::GoogleUnavailable
            | ErrorCode::PaymentsUnavailable
            | ErrorCode::MailUnavailable
            | ErrorCode::NotReady => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal | ErrorCode::DamagedRecord | ErrorCode::Unrecognized => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let retry = self.0.retry_after_s;
        let mut response = (status, axum::Json(self.0)).into_response();
        if let Some(s) = retry
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        tracing::error!(error = %e, "database error");
        if let sqlx::Error::Decode(cause) = &e
            && let Some(damaged) = cause.downcast_ref::<crate::store::Damaged>()
        {
            return AppError::new(
                ErrorCode::DamagedRecord,
                format!("a stored record is damaged: {damaged}"),
            );
        }
        AppError::new(ErrorCode::Internal, "storage failed; nothing was changed")
    }
}

/// The code of an error the framework answered with only a status.
pub fn code_for(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => ErrorCode::Timeout,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::TooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        s if s.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::BadRequest,
    }
}

impl From<JsonRejection> for AppError {
    fn from(e: JsonRejection) -> Self {
        AppError::new(code_for(e.status()), e.body_text())
    }
}

impl From<QueryRejection> for AppError {
    fn from(e: QueryRejection) -> Self {
        AppError::new(ErrorCode::BadRequest, e.body_text())
    }
}

/// JSON in and out, with malformed input answered as an [`ApiError`].
#[derive(axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(AppError))]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// A query string, with a malformed one answered as an [`ApiError`].
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(AppError))]
pub struct Query<T>(pub T);
