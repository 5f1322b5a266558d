//! `TF_APPEND_USER_AGENT`: text both CLIs append to their User-Agent
//! (docs/behaviour.md, "User-Agent").

use crate::Env;

/// The variable both CLIs read.
pub const APPEND_USER_AGENT_VAR: &str = "TF_APPEND_USER_AGENT";

/// The text to append to the User-Agent: `TF_APPEND_USER_AGENT`, trimmed;
/// `None` when it is unset, empty or only white space (or not UTF-8).
///
/// ```
/// use tfdisco_config::{Env, appended_user_agent};
///
/// let env = Env::empty().with_var("TF_APPEND_USER_AGENT", "  my-ci/2.0 ");
/// assert_eq!(appended_user_agent(&env), Some("my-ci/2.0"));
/// assert_eq!(appended_user_agent(&Env::empty()), None);
/// ```
pub fn appended_user_agent(env: &Env) -> Option<&str> {
    env.var(APPEND_USER_AGENT_VAR)
        .and_then(|v| v.to_str())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}
