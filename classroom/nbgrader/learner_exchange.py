"""A learner's nbgrader commands on the class's exchange: submit into ``inbound/NAME/``; read the rest.

Written into the learners' nbgrader configuration by ``scripts/make_assignments.py`` (so it needs
nothing but nbgrader: the class's environment does not hold the ``classroom`` package).

The exchange's top folder is root's and no learner writes it (mode 0755): nbgrader's layout has every
learner write it (mode 1777), so one learner could fill its file system, and hold up the teacher's
release of assignments and feedback for everyone. nbgrader's commands check that the top folder is
writable before they start; a learner's fetch, list, fetch of feedback and submit here ask only to read
it (:class:`ReadRoot`). Where the class server made ``inbound/NAME/`` (root's ``inbound`` then lets
no learner write it), a submission goes there, on that learner's own file system
(``classroom.cli.make_inboxes``): a learner who fills theirs fills no one else's. Where there is no
such folder (an exchange made without root), it is nbgrader's own submit, into ``inbound/``.
"""

import os
import stat

from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from nbgrader.exchange.default.fetch_feedback import ExchangeFetchFeedback
from nbgrader.exchange.default.list import ExchangeList
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import check_directory, check_mode, get_username


class ReadRoot:
    """A learner's command on the exchange, which reads its top folder: it needs to list and enter
    it, not to write it (nbgrader's own check asks for write)."""

    def ensure_root(self):
        if not check_directory(self.root, read=True, execute=True):
            self.fail(f"The exchange {self.root} cannot be read: ask your teacher.")


class ReadRootFetchAssignment(ReadRoot, ExchangeFetchAssignment):
    """nbgrader's fetch_assignment, on an exchange the learner only reads."""


class ReadRootFetchFeedback(ReadRoot, ExchangeFetchFeedback):
    """nbgrader's fetch_feedback, on an exchange the learner only reads."""


class ReadRootList(ReadRoot, ExchangeList):
    """nbgrader's list, on an exchange the learner only reads."""


class InboxSubmit(ReadRoot, ExchangeSubmit):
    """nbgrader's submit, whose destination is ``inbound/NAME/`` when that folder exists."""

    def init_dest(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        student = self.coursedir.student_id
        if student in ("", "*"):
            student = get_username()
        elif "*" in student or "+" in student or os.sep in student:
            self.fail(f"The student ID should contain no '*', '+' nor '{os.sep}'; got {student}")
        inbound = os.path.join(self.root, self.coursedir.course_id, "inbound")
        own = os.path.join(inbound, student)
        if os.path.lexists(own):
            found = os.lstat(own)
            if stat.S_ISDIR(found.st_mode) and found.st_uid == 0:  # root's folder below the mount
                self.fail(f"Your submission folder {own} was made after your server started, which does not see "
                          "it yet: stop your server and start it again (File > Hub Control Panel), then submit.")
            if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
                # made by another account in your name (a link, or a folder of theirs): they would read
                # what you submit there, or delete it
                self.fail(f"{own} is not a folder of yours (a link, or made by another account): nothing is "
                          "submitted there. Ask your teacher to remove it and make yours.")
        if not os.path.isdir(own) and os.path.isdir(inbound) and not check_mode(inbound, write=True, execute=True):
            self.fail(f"No submission folder of yours in {inbound} (the class server makes one per learner when "
                      "the course is made, or when `serve` runs again): ask your teacher.")
        if os.path.isdir(own):
            if not self.authenticator.has_access(student, self.coursedir.course_id):
                self.fail("You do not have access to this course.")
            if not check_mode(own, write=True, execute=True):
                self.fail(f"You don't have write permissions to the directory: {own}")
            self.inbound_path = own
            self.cache_path = os.path.join(self.cache, self.coursedir.course_id)
            parts = [student, self.coursedir.assignment_id, self.timestamp]
            if self.add_random_string:
                import base64

                parts.append(base64.urlsafe_b64encode(os.urandom(9)).decode("ascii"))
            self.assignment_filename = "+".join(parts)
            return
        super().init_dest()
