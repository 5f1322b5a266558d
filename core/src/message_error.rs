//! The error types that are a message and nothing else.

/// Declares an error type that is its message: the struct as written (one
/// private `message: String`), a `new` taking `impl Into<String>` with the
/// visibility given, `message()` documented with the field's doc, a
/// `Display` that writes the message, and `std::error::Error`.
///
/// ```ignore
/// tfdisco_core::message_error! {
///     /// A thing that does not parse.
///     #[derive(Clone, Debug, PartialEq, Eq)]
///     pub struct ThingError {
///         /// The message.
///         message: String,
///     }
///     pub(crate) fn new;
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! message_error {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(#[$message_doc:meta])*
            message: String $(,)?
        }
        $(#[$new_doc:meta])*
        $new_vis:vis fn new;
    ) => {
        $(#[$attr])*
        $vis struct $name {
            message: ::std::string::String,
        }

        impl $name {
            $(#[$new_doc])*
            $new_vis fn new(message: impl ::std::convert::Into<::std::string::String>) -> $name {
                $name {
                    message: message.into(),
                }
            }

            $(#[$message_doc])*
            pub fn message(&self) -> &str {
                &self.message
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.message)
            }
        }

        impl ::std::error::Error for $name {}
    };
}
