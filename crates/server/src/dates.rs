//! Subscription dates: a subscription "until 2027-01-31" is active through that whole day in
//! UTC, so it is stored as the first millisecond after it.

use time::macros::format_description;
use time::{Date, OffsetDateTime};

const DAY_MS: i64 = 86_400_000;

/// The stored end (exclusive, ms since the epoch) of a subscription through `date`
/// (`YYYY-MM-DD`).
pub fn end_of_day_ms(date: &str) -> Result<i64, String> {
    let format = format_description!("[year]-[month]-[day]");
    let day = Date::parse(date.trim(), &format)
        .map_err(|e| format!("{date:?} is not a date like 2027-01-31 ({e})"))?;
    let start = day.midnight().assume_utc().unix_timestamp();
    Ok(start * 1000 + DAY_MS)
}

/// The last day a stored end covers, as `YYYY-MM-DD`.
pub fn last_day(end_ms: i64) -> String {
    day_of(end_ms - 1)
}

/// The UTC day of the moment `ms`, as `YYYY-MM-DD`.
pub fn day_of(ms: i64) -> String {
    match OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000)) {
        Ok(t) => {
            let d = t.date();
            format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
        }
        Err(_) => "9999-12-31".to_owned(),
    }
}

/// The moment `ms` in UTC to the second, as `YYYY-MM-DD HH:MM:SS`, for the operators' lists.
pub fn moment_of(ms: i64) -> String {
    let second = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{} {:02}:{:02}:{:02}",
        day_of(ms),
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_covered_whole_and_reads_back() {
        let end = end_of_day_ms("2027-01-31").unwrap();
        assert_eq!(end, 1_801_440_000_000);
        assert_eq!(last_day(end), "2027-01-31");
        assert!(end_of_day_ms("2027-02-30").is_err());
        assert!(
            end_of_day_ms("tomorrow")
                .unwrap_err()
                .contains("2027-01-31")
        );
        assert_eq!(moment_of(end - 1), "2027-01-31 23:59:59");
        assert_eq!(moment_of(end + 3_723_000), "2027-02-01 01:02:03");
    }
}
